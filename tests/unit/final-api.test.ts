// The public API's final evaluation shows what the public leaderboard shows: names and figures,
// never user ids, and the submission only once the organizers published the solutions.
import { describe, expect, it } from 'vitest';
import type { FinalEvaluationView } from '../../lib/server/db/final/get-final-evaluation';
import { publicFinalEvaluation } from '../../lib/server/web/final-api';

const view = {
  id: 'ev',
  entrants: [
    {
      userId: 'u1',
      userName: 'ada',
      submissionId: 's1',
      place: 1,
      score: 2,
      plausibilityFlags: [],
    },
  ],
} as unknown as FinalEvaluationView;

describe('publicFinalEvaluation', () => {
  it('drops user ids, and submission ids until the solutions are published', () => {
    const hidden = publicFinalEvaluation(view, { solutionsPublished: false }).entrants[0];
    expect(hidden).toEqual({ userName: 'ada', place: 1, score: 2, plausibilityFlags: [] });
    const shown = publicFinalEvaluation(view, { solutionsPublished: true }).entrants[0];
    expect(shown).toEqual({
      userName: 'ada',
      submissionId: 's1',
      place: 1,
      score: 2,
      plausibilityFlags: [],
    });
  });
});

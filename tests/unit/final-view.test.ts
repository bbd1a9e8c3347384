// How `perfjudge final status` prints an evaluation: progress per target with time left while it
// runs, then places with ties and why, exclusions and (for organizers) plausibility flags.
import { describe, expect, it } from 'vitest';
import { formatFinalState } from '../../cli/final-view';
import { finalEvaluationStateSchema } from '../../lib/server/submit/final-client';

const base = {
  id: 'ev1',
  startedAt: '2026-12-01T10:00:00.000Z',
  finishedAt: null,
  publishedAt: null,
  rounds: 20,
  errorRate: 0.05,
  message: null,
  method: null,
};

describe('formatFinalState', () => {
  it('shows each target’s rounds and time left while running, and says it is in progress', () => {
    const text = formatFinalState(
      finalEvaluationStateSchema.parse({
        ...base,
        status: 'RUNNING',
        sessions: [
          {
            target: 'linux-intel',
            status: 'JUDGING',
            roundsDone: 5,
            roundsPlanned: 20,
            etaMs: 180_000,
            message: null,
          },
          {
            target: 'windows-amd',
            status: 'QUEUED',
            roundsDone: 0,
            roundsPlanned: 20,
            etaMs: null,
            message: null,
          },
        ],
        entrants: [],
      }),
    );
    expect(text).toContain('Final evaluation ev1: RUNNING');
    expect(text).toMatch(/linux-intel\s+JUDGING\s+5\/20 rounds, about 3 min left/);
    expect(text).toMatch(/windows-amd\s+QUEUED\s+0\/20 rounds\n/);
    expect(text).toContain('The final evaluation is in progress.');
  });

  it('prints places, shared places with the reason, exclusions and flags', () => {
    const entrant = (name: string, place: number | null, score: number | null, extra = {}) => ({
      userName: name,
      submissionId: `s-${name}`,
      excludedReason: null,
      place,
      score,
      scoreCiLow: score && score * 0.98,
      scoreCiHigh: score && score * 1.02,
      perTarget: score
        ? [
            {
              target: 'linux-intel',
              speedup: score,
              ciLow: score * 0.98,
              ciHigh: score * 1.02,
              rounds: 20,
            },
          ]
        : [],
      tiedWith: [],
      tieReason: null,
      plausibilityFlags: [],
      ...extra,
    });
    const text = formatFinalState(
      finalEvaluationStateSchema.parse({
        ...base,
        status: 'DONE',
        publishedAt: '2026-12-01T12:00:00.000Z',
        method: 'Places by paired comparisons, Holm-corrected at 5%.',
        sessions: [
          {
            target: 'linux-intel',
            status: 'DONE',
            roundsDone: 20,
            roundsPlanned: 20,
            etaMs: null,
            message: null,
          },
        ],
        entrants: [
          entrant('ada', 1, 3.2, {
            tiedWith: ['bob'],
            tieReason: 'the judge cannot tell ada and bob apart',
            plausibilityFlags: ['linux-intel: too fast'],
          }),
          entrant('bob', 1, 3.1, {
            tiedWith: ['ada'],
            tieReason: 'the judge cannot tell ada and bob apart',
          }),
          entrant('cy', 3, 1.5),
          entrant('dee', null, null, { excludedReason: 'linux-intel: did not build' }),
        ],
      }),
    );
    expect(text).toMatch(/ {4}1= ada\s+3\.200 \(3\.136–3\.264\)\s+linux-intel 3\.200×/);
    expect(text).toMatch(/tied with bob: the judge cannot tell ada and bob apart/);
    expect(text).toMatch(/ {4}3 {2}cy/);
    expect(text).toMatch(/ {4}– {2}dee\s+excluded/);
    expect(text).toContain('excluded: linux-intel: did not build');
    expect(text).toContain('implausible: linux-intel: too fast');
    expect(text).toContain('Places by paired comparisons');
  });
});

// Everything a final session's jobs carry, read back from the database: to enqueue a session when
// the evaluation starts, and to re-enqueue a part whose job Redis lost (the reconciler), then with
// the rounds already recorded as its checkpoint (`done`), so it continues where it stopped.
import {
  finalRoundSchema,
  finalSessionJobSchema,
  finalSessionResultSchema,
  type FinalRound,
  type FinalSessionJob,
} from '../../../../contracts';
import { manifestBenchmark } from '../../../core/challenge/benchmark-definition';
import type { Db } from '../client';

/** Rounds a part may start over because a run was disturbed, per round it times. */
const DISCARDED_ROUNDS_PER_ROUND = 3;

/** The round numbers part `part` of `parts` times: round-robin, so each host sees the whole session's span. */
function roundsOfPart(roundsPlanned: number, parts: number, part: number): number[] {
  return Array.from({ length: roundsPlanned }, (_, r) => r).filter((r) => r % parts === part);
}

/** Stored rounds (FinalSession.rounds) that still parse; a malformed one is timed again. */
export function storedRounds(json: unknown): FinalRound[] {
  if (!Array.isArray(json)) return [];
  return json.flatMap((r) => {
    const parsed = finalRoundSchema.safeParse(r);
    return parsed.success ? [parsed.data] : [];
  });
}

/** The parts (FinalSession.results) already recorded. */
export function recordedParts(json: unknown): Set<number> {
  if (!Array.isArray(json)) return new Set();
  return new Set(
    json.flatMap((r) => {
      const parsed = finalSessionResultSchema.safeParse(r);
      return parsed.success ? [parsed.data.part] : [];
    }),
  );
}

/** The jobs of the session's parts that have no result yet (every part, at the start). */
export async function getFinalSessionJobs(db: Db, sessionId: string): Promise<FinalSessionJob[]> {
  const s = await db.finalSession.findUnique({
    where: { id: sessionId },
    select: {
      id: true,
      parts: true,
      roundsPlanned: true,
      rounds: true,
      results: true,
      target: { select: { name: true } },
      evaluation: {
        select: {
          id: true,
          challengeVersionId: true,
          seed: true,
          benchmarkBytes: true,
          challenge: { select: { slug: true, benchmarkDevelopment: true } },
          entrants: {
            orderBy: { id: 'asc' },
            select: { id: true, submission: { select: { patchText: true } } },
          },
        },
      },
    },
  });
  if (!s) return [];
  // FinalEvaluation keeps the version's id without a relation.
  const cv = await db.challengeVersion.findUniqueOrThrow({
    where: { id: s.evaluation.challengeVersionId },
    select: { version: true, manifest: true },
  });
  const manifestSize = manifestBenchmark(cv.manifest).size;
  const e = s.evaluation;
  // Smaller than the manifest's on a contest whose stored definition is development (npm start's
  // quick size): labelled like the provisional results.
  const development = e.benchmarkBytes < manifestSize && e.challenge.benchmarkDevelopment;
  const recorded = recordedParts(s.results);
  const done = storedRounds(s.rounds);
  const jobs: FinalSessionJob[] = [];
  for (let part = 0; part < s.parts; part++) {
    if (recorded.has(part)) continue;
    const rounds = roundsOfPart(s.roundsPlanned, s.parts, part);
    if (rounds.length === 0) continue;
    jobs.push(
      // Parsed like a consumer would: a job the runners could not take fails here.
      finalSessionJobSchema.parse({
        evaluationId: e.id,
        sessionId: s.id,
        part,
        challenge: { slug: e.challenge.slug, version: cv.version },
        target: s.target.name,
        benchmark: { sizeBytes: e.benchmarkBytes, seed: e.seed, development },
        entrants: e.entrants.map((en) => ({
          entrantId: en.id,
          patchText: en.submission.patchText,
        })),
        rounds,
        done: done.filter((r) => rounds.includes(r.round)),
        maxDiscardedRounds: Math.min(10_000, rounds.length * DISCARDED_ROUNDS_PER_ROUND),
      }),
    );
  }
  return jobs;
}

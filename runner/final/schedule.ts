// The round-robin schedule of a final session and what its checkpoint says: pure, so the order and
// the resumption rules are tested without a sandbox.
import { BASELINE_ENTRANT, type FinalRound } from '../../contracts/final';

/**
 * The order of one round: the baseline and the entrants still in, rotated by the round number, so
 * every position (first after a pause, last before one) falls to each of them in turn.
 */
export function roundOrder(round: number, entrants: readonly string[]): string[] {
  const all = [BASELINE_ENTRANT, ...entrants];
  const shift = round % all.length;
  return [...all.slice(shift), ...all.slice(0, shift)];
}

/** The checkpoint's rounds that belong to this job, one per round number, in round order. */
export function checkpointRounds(
  done: readonly FinalRound[],
  rounds: readonly number[],
): FinalRound[] {
  const wanted = new Set(rounds);
  const byRound = new Map<number, FinalRound>();
  for (const round of done) if (wanted.has(round.round)) byRound.set(round.round, round);
  return [...byRound.values()].sort((a, b) => a.round - b.round);
}

/** The rounds still to time: the job's round numbers not in the checkpoint, in the job's order. */
export function roundsToTime(rounds: readonly number[], done: readonly FinalRound[]): number[] {
  const finished = new Set(done.map((r) => r.round));
  return [...new Set(rounds)].filter((r) => !finished.has(r));
}

/**
 * Entrants the checkpoint already excluded: a failed run in a finished round (a runner taking the
 * job over must not time them again), with the failure as the reason.
 */
export function exclusionsInCheckpoint(
  done: readonly FinalRound[],
): Array<{ entrantId: string; reason: string }> {
  const found = new Map<string, string>();
  for (const round of done)
    for (const run of round.runs)
      if (!run.correct && run.entrant !== BASELINE_ENTRANT && !found.has(run.entrant))
        found.set(run.entrant, `round ${round.round + 1}: ${run.failure ?? 'the run failed'}`);
  return [...found].map(([entrantId, reason]) => ({ entrantId, reason }));
}

/** Time left from the pace of the rounds timed so far by this job; null before the first. */
export function etaMs(timedMs: readonly number[], left: number): number | null {
  if (!timedMs.length) return null;
  return (timedMs.reduce((a, b) => a + b, 0) / timedMs.length) * left;
}

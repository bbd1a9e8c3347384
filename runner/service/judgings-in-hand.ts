// One judging at a time per runner process, whatever Redis forgets. When Redis loses a job this
// runner holds (FLUSHALL, a restart without persistence) the scorer's reconciler queues the judging
// again under the same job id, and this worker, which holds several jobs at once, may take the copy
// while it still judges the lost one. Judged beside it, the copy would share the host with its twin;
// and BullMQ, which tracks a worker's locks by job id, would renew only the copy's lock, reach only
// the copy with a cancel, and stop renewing it altogether as soon as the first attempt ended
// (another runner would then take it: a third judging). So a copy waits for the judging in hand,
// forwarding its own cancellation to it, and then gives that judging's answer (a judging's from
// result-outbox.ts, a final session's as its attempt released it). The same holds for final
// sessions (final-session-processor.ts), keyed by their job id.
import type { Job } from 'bullmq';

export interface HeldJudging<Answer = never> {
  held: true;
  /**
   * Resolves once the judging in hand has ended, with the answer it was released with, if any;
   * the copy's abort is forwarded to it meanwhile.
   */
  ended(copySignal: AbortSignal | undefined): Promise<Answer | undefined>;
}

interface TakenJudging<Answer = never> {
  held: false;
  /** Aborted with a copy's reason: BullMQ cancels (shutdown, lock lost) reach only the copy. */
  signal: AbortSignal;
  /** Whether a copy of this judging waits for it in this process. */
  copyWaits(): boolean;
  /** The judging has ended, with the answer the copies give (a judging's is in the outbox too). */
  release(answer?: Answer): void;
}

export interface JudgingsInHand<Answer = never> {
  /** Takes the judging for this attempt, or says another attempt here holds it. */
  take(key: string): TakenJudging<Answer> | HeldJudging<Answer>;
}

export function judgingsInHand<Answer = never>(): JudgingsInHand<Answer> {
  const inHand = new Map<
    string,
    { ended: Promise<Answer | undefined>; controller: AbortController; copies: number }
  >();
  return {
    take(key) {
      const entry = inHand.get(key);
      if (entry)
        return {
          held: true,
          async ended(copySignal) {
            const forward = () => entry.controller.abort(copySignal?.reason);
            if (copySignal?.aborted) forward();
            copySignal?.addEventListener('abort', forward, { once: true });
            entry.copies++;
            const answer = await entry.ended;
            copySignal?.removeEventListener('abort', forward);
            return answer;
          },
        };
      let release!: (answer: Answer | undefined) => void;
      const ended = new Promise<Answer | undefined>((resolve) => (release = resolve));
      const mine = { ended, controller: new AbortController(), copies: 0 };
      inHand.set(key, mine);
      return {
        held: false,
        signal: mine.controller.signal,
        copyWaits: () => mine.copies > 0,
        release: (answer) => {
          inHand.delete(key);
          release(answer);
        },
      };
    },
  };
}

/** The job's own signal and the copies' (either cancels the judging). */
export function withCopiesSignal(
  jobSignal: AbortSignal | undefined,
  taken: Pick<TakenJudging<unknown>, 'signal'>,
): AbortSignal {
  return jobSignal ? AbortSignal.any([jobSignal, taken.signal]) : taken.signal;
}

/** The attempt's name in log lines: the judging already in hand is another BullMQ attempt. */
export function copyNote(job: Pick<Job, 'id'>): string {
  return (
    `job ${job.id}: this runner is already judging it (Redis lost the job and it was queued ` +
    'again): waiting for that judging, not judging it twice'
  );
}

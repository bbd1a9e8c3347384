// Publishes a judging's progress and log lines on its BullMQ job for the web app: progress is
// throttled (the judge reports far more often than anyone can read), logs are capped in size.
import type { Job } from 'bullmq';
import { judgingProgressSchema, type JudgingProgress, type ProgressEvent } from '../../contracts';

/** About two updates a second; a stage change and the final event always go out at once. */
const PROGRESS_INTERVAL_MS = 500;
const MAX_LOG_LINES = 1000;
const MAX_LOG_LINE_CHARS = 4000;

export interface JobPublisher {
  progress(event: ProgressEvent): void;
  log(line: string): void;
  /** Sends what is pending and waits until everything was written. */
  flush(): Promise<void>;
}

export function createJobPublisher(
  job: Pick<Job, 'updateProgress' | 'log'>,
  ids: { judgingId: string; round: number },
  onError: (error: Error) => void,
  intervalMs = PROGRESS_INTERVAL_MS,
): JobPublisher {
  // One chain keeps the writes in order; a failed write is reported, never thrown at the judge.
  let chain: Promise<void> = Promise.resolve();
  const enqueue = (write: () => Promise<unknown>) => {
    chain = chain.then(write).then(
      () => undefined,
      (error: Error) => onError(error),
    );
  };
  let lastSentAt = 0;
  let lastStage: string | null = null;
  let pending: JudgingProgress | null = null;
  let timer: NodeJS.Timeout | undefined;
  let logLines = 0;

  const send = (progress: JudgingProgress) => {
    lastSentAt = Date.now();
    lastStage = progress.stage;
    enqueue(() => job.updateProgress(progress));
  };
  const sendPending = () => {
    clearTimeout(timer);
    timer = undefined;
    if (pending) send(pending);
    pending = null;
  };

  return {
    progress(event) {
      const progress = judgingProgressSchema.parse({ ...event, ...ids });
      const due = Date.now() - lastSentAt >= intervalMs;
      if (due || progress.stage !== lastStage || progress.fraction === 1) {
        pending = progress;
        sendPending();
        return;
      }
      pending = progress;
      timer ??= setTimeout(sendPending, intervalMs - (Date.now() - lastSentAt));
    },
    log(line) {
      logLines += 1;
      if (logLines > MAX_LOG_LINES + 1) return;
      const text =
        logLines > MAX_LOG_LINES
          ? `… further log lines dropped (more than ${MAX_LOG_LINES})`
          : line.length > MAX_LOG_LINE_CHARS
            ? `${line.slice(0, MAX_LOG_LINE_CHARS)}…`
            : line;
      enqueue(() => job.log(text));
    },
    async flush() {
      sendPending();
      await chain;
    },
  };
}

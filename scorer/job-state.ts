// Where a job stands in Redis, asked within the queues' enqueue timeout: the reconcilers compare it
// with what PostgreSQL waits for ('unknown': Redis no longer has the job).
import { withTimeout, type QueueSet } from '../lib/server/queue/producer';

export type JobState = Awaited<ReturnType<ReturnType<QueueSet['queue']>['getJobState']>>;

export function stateOf(queues: QueueSet, queueName: string, jobId: string): Promise<JobState> {
  return withTimeout(
    queues.queue(queueName).getJobState(jobId),
    queues.enqueueTimeoutMs,
    `Looking up job ${jobId}`,
  );
}

/** Runs a failed score job again: its children's answers are still held by it, so it records them. */
export async function retryFailedScoreJob(queues: QueueSet, jobId: string): Promise<void> {
  const job = await withTimeout(
    queues.scoreQueue().getJob(jobId),
    queues.enqueueTimeoutMs,
    `Looking up job ${jobId}`,
  );
  await withTimeout(
    job?.retry('failed') ?? Promise.resolve(),
    queues.enqueueTimeoutMs,
    `Retrying job ${jobId}`,
  );
}

// What an attempt that lost its job may still do: write nothing on the job (whileOurs), say once
// that Redis lost it (writeFailures), and its end, refused by BullMQ, is logged in words
// (abandonedAttempt), not as a Redis error.
import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import {
  CANCEL_LOCK_LOST,
  CANCEL_SHUTDOWN,
  whileOurs,
  writeFailures,
} from '../../runner/service/judging-processor';
import { abandonedAttempt } from '../../runner/service/runner-service';

function recordingJob(): { job: Job; writes: string[] } {
  const writes: string[] = [];
  const job = {
    updateProgress: async (p: unknown) => void writes.push(`progress ${JSON.stringify(p)}`),
    log: async (line: string) => writes.push(`log ${line}`),
    updateData: async (d: unknown) => void writes.push(`data ${JSON.stringify(d)}`),
  } as unknown as Job;
  return { job, writes };
}

describe('whileOurs', () => {
  it('writes until the attempt knows it lost the lock, then nothing', async () => {
    const { job, writes } = recordingJob();
    const attempt = new AbortController();
    const on = whileOurs(job, attempt.signal);
    await on.updateProgress(1);
    await on.log('one');
    await on.updateData({ done: 1 });
    attempt.abort(CANCEL_LOCK_LOST);
    await on.updateProgress(2);
    await on.log('two');
    await on.updateData({ done: 2 });
    expect(writes).toEqual(['progress 1', 'log one', 'data {"done":1}']);
  });

  it('keeps writing when the attempt was stopped for another reason (the job is still its own)', async () => {
    const { job, writes } = recordingJob();
    const attempt = new AbortController();
    attempt.abort(CANCEL_SHUTDOWN);
    await whileOurs(job, attempt.signal).log('handing back');
    expect(writes).toEqual(['log handing back']);
  });
});

describe('writeFailures', () => {
  it('says once that Redis lost the job, and every other failure as it comes', () => {
    const lines: string[] = [];
    const failed = writeFailures({ id: 'final-s-p0' }, (line) => lines.push(line));
    failed('log', new Error('Missing key for job final-s-p0. addLog'));
    failed('checkpoint', new Error('Missing key for job final-s-p0. updateData'));
    failed('progress', new Error('Connection is closed.'));
    failed('progress', new Error('Connection is closed.'));
    expect(lines).toEqual([
      "job final-s-p0: Redis no longer has this job (lost; the scorer's reconciler queues it " +
        'again): its log and what follows is not written until then',
      'job final-s-p0: could not write the progress: Connection is closed.',
      'job final-s-p0: could not write the progress: Connection is closed.',
    ]);
  });
});

describe('abandonedAttempt', () => {
  it("says BullMQ's lock refusals in words, naming the job", () => {
    for (const message of [
      'Lock mismatch for job final-abc-p0. Cmd moveToFinished from active',
      'Missing lock for job judging-x-r0. moveToDelayed',
    ]) {
      const line = abandonedAttempt(new Error(message));
      expect(line).toMatch(/^job (final-abc-p0|judging-x-r0): an abandoned attempt ended/);
      expect(line).toContain(message);
    }
  });

  it('leaves every other error to the Redis log', () => {
    expect(abandonedAttempt(new Error('Missing key for job x. addLog'))).toBeNull();
    expect(abandonedAttempt(new Error('connect ECONNREFUSED 127.0.0.1:6379'))).toBeNull();
  });
});

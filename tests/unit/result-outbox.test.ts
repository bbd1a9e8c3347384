// The runner's outbox: an answer is found again for exactly the same job (whatever the key order
// its producer wrote), never for another round or definition; a JUDGE_ERROR is not kept, and
// answers older than the retention are dropped.
import { mkdtemp, rm, utimes } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgingJobSchema, type JudgingJobResult } from '../../contracts';
import { makeResult } from '../../dev/db-fixtures';
import { OUTBOX_KEEP_MS, outboxKey, resultOutbox } from '../../runner/service/result-outbox';

const job = judgingJobSchema.parse({
  judgingId: 'j1',
  round: 2,
  submissionId: 's1',
  challenge: { slug: 'wordcount', version: 3 },
  target: 'linux-intel',
  patchText: 'a patch',
  benchmark: { sizeBytes: 1 << 20, seed: 'a-contest-seed', development: true, revision: 1 },
});

function answer(verdict: 'ACCEPTED' | 'JUDGE_ERROR'): JudgingJobResult {
  return {
    judgingId: 'j1',
    round: 2,
    runnerId: 'r1',
    result: makeResult({ slug: 'wordcount', version: 3, target: 'linux-intel', verdict }),
  };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-outbox-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the result outbox', () => {
  it('finds an answer again for the same job only', async () => {
    const outbox = resultOutbox(dir, { prefix: 'p', target: 'linux-intel' });
    expect(await outbox.find(job)).toBeNull();
    await outbox.keep(job, answer('ACCEPTED'));
    // The same job written by another producer, keys in another order.
    const reordered = judgingJobSchema.parse(Object.fromEntries(Object.entries(job).reverse()));
    expect(outboxKey(reordered)).toBe(outboxKey(job));
    expect((await outbox.find(reordered))?.result.verdict).toBe('ACCEPTED');
    expect(await outbox.find({ ...job, round: 3 })).toBeNull();
    expect(
      await outbox.find({ ...job, benchmark: { ...job.benchmark!, sizeBytes: 2 << 20 } }),
    ).toBeNull();
    // Another platform on the same host (another key prefix) has its own.
    expect(await resultOutbox(dir, { prefix: 'q', target: 'linux-intel' }).find(job)).toBeNull();
  });

  it('keeps no JUDGE_ERROR, and drops answers past the retention', async () => {
    const now = Date.now();
    const outbox = resultOutbox(dir, { prefix: 'e', target: 'linux-intel' }, () => now);
    await outbox.keep(job, answer('JUDGE_ERROR'));
    expect(await outbox.find(job)).toBeNull();

    await outbox.keep(job, answer('ACCEPTED'));
    const old = path.join(dir, 'outbox', 'e.linux-intel', `${outboxKey(job)}.json`);
    const longAgo = new Date(now - OUTBOX_KEEP_MS - 60_000);
    await utimes(old, longAgo, longAgo);
    await outbox.keep({ ...job, round: 9 }, { ...answer('ACCEPTED'), round: 9 });
    expect(await outbox.find(job)).toBeNull();
    expect(await outbox.find({ ...job, round: 9 })).not.toBeNull();
  });
});

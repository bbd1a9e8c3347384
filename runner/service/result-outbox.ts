// Finished work is never re-done: a runner keeps each answer it gives (its outbox, on its own disk)
// for as long as BullMQ keeps finished jobs. If Redis loses the answer before the scorer recorded
// it (FLUSHALL, a restart without persistence), the reconciler queues the judging again, with the
// same id, round and definition; a runner that finds its own answer for exactly that job gives it
// again at once instead of judging it a second time. The scorer records a result once whatever it
// is delivered (BullMQ's idempotent jobs), so a second delivery is harmless.
//
// A JUDGE_ERROR is not kept: it is the platform's fault, and a new attempt may succeed.
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  judgingJobResultSchema,
  type JudgingJob,
  type JudgingJobResult,
  type TargetId,
} from '../../contracts';

/** As long as the producer keeps completed judge jobs (lib/server/queue/producer.ts): 7 days. */
export const OUTBOX_KEEP_MS = 7 * 24 * 3600_000;

/** JSON with sorted keys: two producers building the same job in another key order agree. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/** Everything that decides what the judging is: another round, patch or definition is another job. */
export function outboxKey(job: JudgingJob): string {
  return createHash('sha256').update(canonical(job)).digest('hex').slice(0, 40);
}

export interface ResultOutbox {
  /** This runner's answer to exactly this job, if it gave one. */
  find(job: JudgingJob): Promise<JudgingJobResult | null>;
  /** Keeps an answer (not a JUDGE_ERROR) and drops the ones older than OUTBOX_KEEP_MS. */
  keep(job: JudgingJob, answer: JudgingJobResult): Promise<void>;
}

/**
 * The outbox of one queue namespace (the Redis key prefix: one platform) and target, under the
 * runner's data dir, which outlives the runner process and its scratch folders.
 */
export function resultOutbox(
  dataDir: string,
  namespace: { prefix: string; target: TargetId },
  now: () => number = Date.now,
): ResultOutbox {
  const root = path.join(dataDir, 'outbox');
  const dir = path.join(root, `${namespace.prefix}.${namespace.target}`);
  const file = (job: JudgingJob) => path.join(dir, `${outboxKey(job)}.json`);
  return {
    async find(job) {
      let text: string;
      try {
        text = await readFile(file(job), 'utf8');
      } catch {
        return null;
      }
      // Written by this runner; validated anyway: a torn or foreign file is no answer.
      const parsed = judgingJobResultSchema.safeParse(JSON.parse(text));
      if (!parsed.success) return null;
      const answer = parsed.data;
      return answer.judgingId === job.judgingId && answer.round === job.round ? answer : null;
    },
    async keep(job, answer) {
      if (answer.result.verdict === 'JUDGE_ERROR') return;
      await mkdir(dir, { recursive: true });
      const target = file(job);
      const temporary = `${target}.${process.pid}.tmp`;
      await writeFile(temporary, JSON.stringify(answer));
      await rename(temporary, target);
      await dropOld(root, now() - OUTBOX_KEEP_MS);
    },
  };
}

/** Every namespace's answers older than `before`, and the folders left empty. */
async function dropOld(root: string, before: number): Promise<void> {
  for (const folder of await readdir(root).catch(() => [] as string[])) {
    const dir = path.join(root, folder);
    const names = await readdir(dir).catch(() => [] as string[]);
    let left = names.length;
    for (const name of names) {
      const info = await stat(path.join(dir, name)).catch(() => null);
      if (info && info.mtimeMs < before) {
        await rm(path.join(dir, name), { force: true });
        left--;
      }
    }
    if (left === 0) await rm(dir, { recursive: true, force: true });
  }
}

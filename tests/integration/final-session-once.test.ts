// A final session part is timed once at a time, even when Redis loses its job mid-session: a real
// runner process timing a real final evaluation's part, FLUSHALL on a PRIVATE redis-server (the
// shared one is never flushed), the real scorer's final reconciler re-queuing the part from
// PostgreSQL (own schema) under the same job id. The runner, which holds several jobs at once,
// takes the copy while it still times the lost part: the copy must wait for that session and
// answer with its result (runner/service/judgings-in-hand.ts, the rule judgings follow), never
// start a second session of the part; every round is recorded once and the evaluation ends.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { finalSessionJobId } from '../../contracts/final';
import { REPO_ROOT } from '../../lib/core/config/env';
import { startFinalEvaluation } from '../../lib/server/submit/final-evaluation';
import { makeUser } from '../../dev/db-fixtures';
import { acceptedSubmission } from '../helpers/final-fixtures';
import { startFlushedPlatform, type FlushedPlatform } from '../helpers/flushed-platform';
import { smallJudgingArgs, spawnRunner, type RunnerProcess } from '../helpers/queue';

const PREFIX = 'pjfinalonce';
/** Rounds enough (about 0.15 s each here) that the copy arrives long before the session ends. */
const ROUNDS = 20;

let platform: FlushedPlatform;
let runner: RunnerProcess | undefined;

beforeAll(async () => {
  // A closed contest, whose final evaluation the test starts.
  platform = await startFlushedPlatform({
    prefix: PREFIX,
    challenge: { closedAt: new Date() },
    runnerOutput: () => runner?.output().slice(-4000) ?? '',
  });
  const patch = await readFile(
    path.join(REPO_ROOT, 'challenges/wordcount/submissions/accepted/fast-hash-table.patch'),
    'utf8',
  );
  await acceptedSubmission(platform.database.db, {
    userId: await makeUser(platform.database.db, 'once-finalist'),
    slug: 'wordcount',
    version: platform.version,
    speedup: 2,
    patch,
  });
});

afterAll(async () => {
  runner?.stop('SIGKILL');
  await runner?.exited;
  await platform?.close();
});

it('FLUSHALL mid-session: the runner takes the re-queued part but never times it beside the session in hand', async () => {
  const { db } = platform.database;
  const { queues, reports } = await platform.startScorer();
  const dir = path.join(platform.tmp, 'runner');
  runner = spawnRunner({
    prefix: PREFIX,
    id: 'final-once-runner',
    args: smallJudgingArgs(dir),
    env: { REDIS_URL: platform.redis.url },
  });
  await runner.waitFor(/serving judge-linux-intel/, 120_000);

  const started = await startFinalEvaluation({
    db,
    queues,
    actorId: await makeUser(db, 'once-organizer'),
    challengeSlug: 'wordcount',
    rounds: ROUNDS,
  });
  const session = await db.finalSession.findFirstOrThrow({
    where: { evaluationId: started.evaluationId },
    select: { id: true },
  });
  const jobId = finalSessionJobId(session.id, 0);
  // As soon as the session is in hand: its builds and rounds still to come leave the reconciler
  // seconds to re-queue the part before the session ends, however fast the host.
  await runner.waitFor(new RegExp(`job ${jobId}: final session \\S+ part 0, attempt 1`), 240_000);
  await platform.redis.flushAll();
  await platform.until(
    'the reconciler to re-queue the part',
    async () => reports.some((r) => r.finalRequeued.includes(jobId)),
    30_000,
  );
  const done = await platform.until(
    'the evaluation to end',
    async () => {
      const e = await db.finalEvaluation.findUniqueOrThrow({
        where: { id: started.evaluationId },
        select: { status: true, message: true, sessions: { select: { rounds: true } } },
      });
      return e.status !== 'RUNNING' ? e : null;
    },
    240_000,
  );
  const output = runner.output();
  const lines = output.split('\n').filter((l) => l.includes(`job ${jobId}:`));
  console.log(lines.join('\n'));
  expect(done, output).toMatchObject({ status: 'DONE', message: null });
  // Every round recorded, each once.
  const rounds = (done.sessions[0]?.rounds as { round: number }[]).map((r) => r.round);
  expect(rounds).toEqual([...Array(ROUNDS).keys()]);
  // The part was timed once (without the rule, the copy times all its rounds again) …
  expect(
    lines.filter((l) => /: \d+ rounds in /.test(l)),
    output,
  ).toHaveLength(1);
  // … the copy was taken while the session was in hand (else this test proves nothing) …
  expect(
    lines.some((l) => l.includes('this runner is already judging it')),
    output,
  ).toBe(true);
  // … and answered with that session's result: one session of the part ever started.
  expect(
    lines.filter((l) => /: final session \S+ part 0, attempt/.test(l)),
    output,
  ).toHaveLength(1);
  expect(
    lines.some((l) => /rounds, the answer of the attempt that was in hand/.test(l)),
    output,
  ).toBe(true);
}, 480_000);

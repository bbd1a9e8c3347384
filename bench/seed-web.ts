// Seeds a database for the web benchmarks: the wordcount challenge (both targets), N contestants
// (some with very long names), M judged submissions spread over them with realistic results (build
// logs, tests, timed runs with counters, counter comparison, memory profile, Top-Down, cachegrind),
// Run rows, a few wrong answers and disqualifications, then the leaderboard rows refreshed by the
// scorer's own refreshLeaderboardEntry. Bulk work is INSERT … SELECT in PostgreSQL: 20,000
// submissions take seconds, not the minutes that one Prisma call per row would.
// bench/web-latency.ts seeds a private schema with it; `npm run bench -- seed-web [contestants]
// [submissions]` seeds the database at DATABASE_URL (an empty one) for looking at pages by hand.
import { judgingResultSchema, type JudgingResult } from '../contracts';
import { createDbClient } from '../lib/server/db/client';
import { env } from '../lib/core/config/env';
import { hashPassword } from '../lib/core/access/password';
import type { Db } from '../lib/server/db/client';
import { CREDENTIAL_PROVIDER } from '../lib/server/db/accounts/create-user';
import { refreshLeaderboardEntry } from '../lib/server/db/leaderboard/refresh-leaderboard-entry';
import { makeResult, registerChallenge } from '../dev/db-fixtures';

export interface SeedWebOptions {
  contestants: number;
  submissions: number;
}

export interface SeededWeb {
  challengeSlug: string;
  /** Contestant 0 can sign in with these; their best submission is `authorSubmissionId`. */
  authorEmail: string;
  authorPassword: string;
  authorSubmissionId: string;
  /** An organizer's sign-in (the author's password): they may open any submission's page. */
  organizerEmail: string;
  /** Ids of a sample of other contestants' submissions (up to 2,000), for pages no one opened yet. */
  otherSubmissionIds: string[];
  leaderboardRows: number;
  /** Average size of a stored judging result (JSON text), to say what the benchmark carried. */
  resultBytes: number;
}

const PAIRS = 5;
const ORGANIZER_EMAIL = 'organizer@bench.test';
/** Result templates for speedups 1.0, 1.1, … 6.9: each judging takes the nearest, then its exact estimate. */
const BUCKETS = Array.from({ length: 60 }, (_, i) => 1 + i / 10);

const COUNTERS = [
  ['task-clock', 'msec'],
  ['cycles', ''],
  ['instructions', ''],
  ['branches', ''],
  ['branch-misses', ''],
  ['cache-references', ''],
  ['cache-misses', ''],
  ['page-faults', ''],
] as const;

function buildLog(side: string): string {
  return [
    `-- The CXX compiler identification is Clang 14.0.6`,
    `-- Configuring done (0.4s)`,
    `-- Generating done (0.0s)`,
    ...Array.from(
      { length: 12 },
      (_, i) =>
        `[${String(((i + 1) * 100) / 12).slice(0, 4)}%] Building CXX object CMakeFiles/wordcount.dir/src/part${i}.cpp.o (${side})`,
    ),
    `[100%] Linking CXX executable wordcount`,
  ].join('\n');
}

function memoryProfile(peak: number) {
  const points = Array.from({ length: 40 }, (_, i) => ({
    tMs: i * 5,
    rssBytes: Math.round(peak * Math.min(1, (i + 1) / 40)),
    vmBytes: Math.round(peak * 1.6),
    anonBytes: Math.round(peak * Math.min(1, (i + 1) / 40) * 0.9),
    thpBytes: 0,
  }));
  return {
    intervalMs: 5,
    durationMs: 300,
    samples: 40,
    points,
    peaks: { rssBytes: peak, vmBytes: peak * 1.6, anonBytes: peak * 0.9, thpBytes: 0 },
  };
}

type Target = 'linux-intel' | 'windows-amd';
type MeasureStage = NonNullable<JudgingResult['stages']['measure']>;

/** Every timed run's counters and the counter comparison (none counted on the emulated target). */
function fillCounters(measure: MeasureStage, target: Target, speedup: number): void {
  const counters = (wallMs: number) =>
    Object.fromEntries(
      COUNTERS.map(([name, unit]) => [
        name,
        target === 'windows-amd'
          ? { value: null, unit, status: 'unsupported' as const, runningPercent: null }
          : {
              value: Math.round(wallMs * (name === 'task-clock' ? 1 : 3_100_000)),
              unit,
              status: 'counted' as const,
              runningPercent: 100,
            },
      ]),
    );
  for (const run of measure.runs) run.counters = counters(run.stats.wallMs);
  measure.counters = COUNTERS.map(([name, unit]) => ({
    name,
    unit,
    kind: 'counter' as const,
    status: target === 'windows-amd' ? ('unsupported' as const) : ('counted' as const),
    baseline: target === 'windows-amd' ? null : 100 * 3_100_000,
    solution: target === 'windows-amd' ? null : (100 / speedup) * 3_100_000,
    ratio: target === 'windows-amd' ? null : 1 / speedup,
    runningPercent: target === 'windows-amd' ? null : 100,
  }));
}

/** The profile stage: memory over time, and Top-Down on the native target. */
function profileStage(target: Target) {
  return {
    memory: { baseline: memoryProfile(48 << 20), solution: memoryProfile(96 << 20) },
    topdown:
      target === 'linux-intel'
        ? {
            baseline: {
              source: 'TopdownL1',
              retiring: 0.3,
              badSpeculation: 0.1,
              frontendBound: 0.2,
              backendBound: 0.4,
            },
            solution: {
              source: 'TopdownL1',
              retiring: 0.5,
              badSpeculation: 0.05,
              frontendBound: 0.15,
              backendBound: 0.3,
            },
          }
        : null,
    deterministic: null,
    notes: target === 'windows-amd' ? ['Top-Down unsupported: emulated target'] : [],
  };
}

/** An accepted result at `speedup` on `target` with every stage filled in as a real runner would. */
function acceptedTemplate(
  version: number,
  target: 'linux-intel' | 'windows-amd',
  speedup: number,
): JudgingResult {
  const base = makeResult({ slug: 'wordcount', version, target, speedup, pairs: PAIRS });
  const measure = base.stages.measure;
  if (!measure) throw new Error('makeResult gave no measure stage');
  fillCounters(measure, target, speedup);
  const build = (side: string) => ({
    ok: true,
    cached: false,
    durationMs: 4200,
    log: buildLog(side),
    binarySha256: 'ef'.repeat(32),
    limitExceeded: null,
  });
  return judgingResultSchema.parse({
    ...base,
    stages: {
      ...base.stages,
      intake: {
        ok: true,
        reason: null,
        format: 'git-diff',
        files: [{ path: 'wordcount.cpp', change: 'modified', additions: 120, deletions: 4 }],
      },
      build: { baseline: build('baseline'), solution: build('solution'), identicalBinaries: false },
      test: {
        cases: Array.from({ length: 16 }, (_, i) => ({
          group: i < 14 ? 'edge-cases' : 'public',
          name: `case-${i}`,
          required: true,
          outcome: 'passed',
          wallMs: 3 + i,
          diff: [],
          message: '',
        })),
      },
      measure,
      profile: profileStage(target),
    },
    warnings: target === 'windows-amd' ? ['emulated: timings are not comparable to native'] : [],
    stageDurationsMs: { intake: 40, build: 8400, test: 300, measure: 4000, profile: 900 },
  });
}

function wrongTemplate(version: number, target: 'linux-intel' | 'windows-amd'): JudgingResult {
  const base = makeResult({ slug: 'wordcount', version, target, verdict: 'WRONG_ANSWER' });
  return judgingResultSchema.parse({
    ...base,
    stages: {
      ...base.stages,
      test: {
        cases: [
          {
            group: 'edge-cases',
            name: 'nbsp-is-not-space',
            required: true,
            outcome: 'wrong-answer',
            wallMs: 4,
            diff: [{ line: 3, expected: 'a\u00a0b\t1', got: 'a\t1' }],
            message: 'output differs at line 3',
          },
        ],
      },
    },
  });
}

type Version = { id: string; challengeId: string };

export async function seedWeb(
  db: Db,
  options: SeedWebOptions,
  log: (line: string) => void = () => {},
): Promise<SeededWeb> {
  const { contestants, submissions } = options;
  let t0 = Date.now();
  const step = (what: string) => {
    log(`  seeded ${what} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    t0 = Date.now();
  };
  // Results carry the registered manifest's version, as a runner's would.
  const manifest = await registerChallenge(db);
  const version = await db.challengeVersion.findFirstOrThrow({
    where: { challenge: { slug: 'wordcount' } },
    select: { id: true, challengeId: true, targets: { select: { id: true, name: true } } },
  });
  const authorPassword = await seedContestants(db, contestants);
  step(`${contestants} contestants`);
  await seedSubmissions(db, version, contestants, submissions);
  step(`${submissions} submissions`);
  await seedJudgings(db, version, submissions, manifest.version);
  step('their judgings with results');
  await seedScoresAndRuns(db, version);
  step('scores and runs');
  await refreshLeaderboard(db, version, contestants);
  step('leaderboard rows');
  return seeded(db, version, authorPassword);
}

/** The contestants (contestant 0 can sign in) and an organizer; the password of both. */
async function seedContestants(db: Db, contestants: number): Promise<string> {
  const authorPassword = 'bench-password-0123456789';
  // Contestants: every 97th has a very long name, as some do. Contestant 0 can sign in.
  await db.$executeRaw`
    INSERT INTO "User" (id, email, name, role, "emailVerified", "createdAt", "updatedAt")
    SELECT 'buser' || g, 'contestant' || g || '@bench.test',
           CASE WHEN g % 97 = 1
                THEN 'Contestant ' || g || ' with an exceedingly long display name that goes on and on'
                ELSE 'Contestant ' || g END,
           'CONTESTANT', false, now(), now()
    FROM generate_series(0, ${contestants - 1}::int) g`;
  // An organizer, who may open every submission's page (the same password).
  await db.user.create({
    data: { id: 'borganizer', email: ORGANIZER_EMAIL, name: 'Organizer', role: 'ORGANIZER' },
  });
  const hash = await hashPassword(authorPassword);
  await db.account.createMany({
    data: ['buser0', 'borganizer'].map((userId) => ({
      userId,
      accountId: userId,
      providerId: CREDENTIAL_PROVIDER,
      password: hash,
    })),
  });
  return authorPassword;
}

const PATCH_TEXT = [
  'diff --git a/wordcount.cpp b/wordcount.cpp',
  '--- a/wordcount.cpp',
  '+++ b/wordcount.cpp',
  '@@ -1,3 +1,3 @@',
  '-// baseline',
  '+// faster',
  '',
].join('\n');

async function seedSubmissions(
  db: Db,
  version: Version,
  contestants: number,
  submissions: number,
): Promise<void> {
  // Submissions over the last 14 days; 1 in 10 a wrong answer, 1 in 400 disqualified later.
  await db.$executeRaw`
    INSERT INTO "Submission" (id, "userId", "challengeId", "challengeVersionId", "patchText",
      "patchSha256", "patchBytes", status, verdict, disqualified, "disqualifiedReason",
      "createdAt", "updatedAt", "judgedAt")
    SELECT 'bsub' || g, 'buser' || (g % ${contestants}::int), ${version.challengeId},
           ${version.id}, ${PATCH_TEXT}, md5(g::text) || md5(g::text), ${PATCH_TEXT.length},
           'DONE'::"SubmissionStatus",
           (CASE WHEN abs(hashtext('v' || g)) % 10 = 3 THEN 'WRONG_ANSWER' ELSE 'ACCEPTED' END)::"Verdict",
           g % 400 = 7, CASE WHEN g % 400 = 7 THEN 'benchmark: disqualified' END,
           now() - make_interval(secs => (${submissions}::int - g) * 60.0),
           now(), now() - make_interval(secs => (${submissions}::int - g) * 60.0 - 30)
    FROM generate_series(0, ${submissions - 1}::int) g`;
}

async function seedJudgings(
  db: Db,
  version: Version,
  submissions: number,
  manifestVersion: number,
): Promise<void> {
  const templates = {
    accepted: Object.fromEntries(
      (['linux-intel', 'windows-amd'] as const).map((t) => [
        t,
        BUCKETS.map((s) => acceptedTemplate(manifestVersion, t, s)),
      ]),
    ),
    wrong: Object.fromEntries(
      (['linux-intel', 'windows-amd'] as const).map((t) => [t, wrongTemplate(manifestVersion, t)]),
    ),
  };
  // One judging per submission and target. A contestant's skill sets their speedups, which grow
  // with each attempt; the hash of the judging adds noise.
  await db.$executeRaw`
    WITH tpl AS MATERIALIZED (
      -- Parsed once, not once per row.
      SELECT ${JSON.stringify(templates.accepted)}::jsonb AS accepted,
             ${JSON.stringify(templates.wrong)}::jsonb AS wrong
    ), j AS (
      SELECT s.id AS sid, s.verdict, s."createdAt", t.id AS tid, t.name AS tname,
             GREATEST(1.0, LEAST(6.99, (1 + (abs(hashtext(s."userId")) % 250) / 100.0)
               * (1 + 0.3 * substr(s.id, 5)::int / ${submissions}::float8)
               * (0.9 + (abs(hashtext(s.id || t.name)) % 1000) / 5000.0)))::float8 AS sp
      FROM "Submission" s JOIN "Target" t ON t."challengeVersionId" = s."challengeVersionId"
      WHERE s."challengeId" = ${version.challengeId}
    )
    INSERT INTO "Judging" (id, "submissionId", "targetId", status, verdict, message, result,
      speedup, "ciLow", "ciHigh", "devMode", emulated, "hostFingerprint", "hostFingerprintHash",
      "queuedAt", "startedAt", "finishedAt", "createdAt", "updatedAt")
    SELECT 'bj' || j.tname || j.sid, j.sid, j.tid, 'DONE'::"JudgingStatus", j.verdict,
           CASE WHEN j.verdict = 'ACCEPTED' THEN round(j.sp::numeric, 2) || '× faster'
                ELSE 'output differs at line 3' END,
           CASE WHEN j.verdict = 'ACCEPTED'
                THEN jsonb_set(jsonb_set(jsonb_set(jsonb_set(
                       (tpl.accepted -> j.tname -> (floor((j.sp - 1) * 10))::int),
                       '{stages,measure,estimate,speedup}', to_jsonb(j.sp)),
                       '{stages,measure,estimate,ciLow}', to_jsonb(j.sp * 0.97)),
                       '{stages,measure,estimate,ciHigh}', to_jsonb(j.sp * 1.03)),
                       '{stages,measure,solution,medianMs}', to_jsonb(100 / j.sp))
                ELSE tpl.wrong -> j.tname END,
           CASE WHEN j.verdict = 'ACCEPTED' THEN j.sp END,
           CASE WHEN j.verdict = 'ACCEPTED' THEN j.sp * 0.97 END,
           CASE WHEN j.verdict = 'ACCEPTED' THEN j.sp * 1.03 END,
           true, j.tname = 'windows-amd',
           (tpl.wrong -> j.tname -> 'host'), 'bench-host-' || j.tname,
           j."createdAt", j."createdAt", j."createdAt" + interval '30 seconds', j."createdAt", now()
    FROM j CROSS JOIN tpl`;
}

/** The submissions' scores, and the timed and warm-up runs as rows. */
async function seedScoresAndRuns(db: Db, version: Version): Promise<void> {
  await db.$executeRaw`
    UPDATE "Submission" s SET score = x.total
    FROM (SELECT "submissionId", sum(speedup) AS total FROM "Judging" GROUP BY "submissionId") x
    WHERE x."submissionId" = s.id AND s.verdict = 'ACCEPTED' AND s."challengeId" = ${version.challengeId}`;

  // The timed and warm-up runs as rows too (the submission page's chart reads them).
  await db.$executeRaw`
    INSERT INTO "Run" (id, "judgingId", seq, side, kind, pair, "wallMs", "userMs", "sysMs",
      "maxRssBytes", "cpuUtilization", "outputBytes", "outputSha256", correct, "exitCode", signal,
      counters)
    SELECT j.id || '-' || r.seq, j.id, r.seq,
           (CASE WHEN r.seq % 2 = 0 THEN 'BASELINE' ELSE 'SOLUTION' END)::"RunSide",
           (CASE WHEN r.seq < 2 THEN 'WARMUP' ELSE 'TIMED' END)::"RunKind",
           CASE WHEN r.seq < 2 THEN NULL ELSE (r.seq - 2) / 2 END,
           w.ms, w.ms * 0.9, w.ms * 0.05, 48 << 20, 0.95, 4096, repeat('ab', 32), true, 0, NULL,
           jsonb_build_object('task-clock', jsonb_build_object('value', w.ms, 'unit', 'msec',
             'status', 'counted', 'runningPercent', 100))
    FROM "Judging" j
    CROSS JOIN generate_series(0, ${2 + 2 * PAIRS - 1}::int) AS r(seq)
    CROSS JOIN LATERAL (SELECT CASE WHEN r.seq % 2 = 0 THEN 100.0
                                    ELSE 100.0 / j.speedup * (0.98 + (r.seq % 5) / 100.0) END
                          AS ms) w
    WHERE j.verdict = 'ACCEPTED' AND j.id LIKE 'bj%'`;
}

async function refreshLeaderboard(db: Db, version: Version, contestants: number): Promise<void> {
  // The leaderboard rows, by the scorer's own function, a few contestants at a time.
  const ids = Array.from({ length: contestants }, (_, i) => `buser${i}`);
  for (let i = 0; i < ids.length; i += 8)
    await Promise.all(
      ids
        .slice(i, i + 8)
        .map((userId) =>
          db.$transaction((tx) =>
            refreshLeaderboardEntry(tx, { challengeId: version.challengeId, userId }),
          ),
        ),
    );
  await db.$executeRawUnsafe('ANALYZE');
}

async function seeded(db: Db, version: Version, authorPassword: string): Promise<SeededWeb> {
  const best = await db.leaderboardEntry.findUniqueOrThrow({
    where: { challengeId_userId: { challengeId: version.challengeId, userId: 'buser0' } },
    select: { submissionId: true },
  });
  const [size] = await db.$queryRaw<{ bytes: number }[]>`
    SELECT avg(length(result::text))::float8 AS bytes FROM "Judging" WHERE verdict = 'ACCEPTED'`;
  return {
    challengeSlug: 'wordcount',
    authorEmail: 'contestant0@bench.test',
    authorPassword,
    authorSubmissionId: best.submissionId,
    organizerEmail: ORGANIZER_EMAIL,
    otherSubmissionIds: (
      await db.submission.findMany({
        where: { userId: { not: 'buser0' } },
        select: { id: true },
        orderBy: { id: 'asc' },
        take: 2000,
      })
    ).map((s) => s.id),
    leaderboardRows: await db.leaderboardEntry.count(),
    resultBytes: size?.bytes ?? 0,
  };
}

export default async function seedWebCommand(args: string[]): Promise<void> {
  const [contestants = 1000, submissions = 20_000] = args.map(Number);
  if (!Number.isInteger(contestants) || contestants < 1 || !Number.isInteger(submissions))
    throw new Error('usage: npm run bench -- seed-web [contestants] [submissions]');
  const url = env().DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set: seed-web seeds that database');
  const db = createDbClient(url);
  try {
    if (await db.user.findUnique({ where: { id: 'buser0' }, select: { id: true } }))
      throw new Error('this database is already seeded (user buser0 exists)');
    const t0 = Date.now();
    const seeded = await seedWeb(db, { contestants, submissions }, (line) =>
      process.stdout.write(`${line}\n`),
    );
    process.stdout.write(
      `seed-web: ${contestants} contestants, ${submissions} submissions, ${seeded.leaderboardRows} leaderboard rows in ${((Date.now() - t0) / 1000).toFixed(1)} s; sign in as ${seeded.authorEmail} / ${seeded.authorPassword}\n`,
    );
  } finally {
    await db.$disconnect();
  }
}

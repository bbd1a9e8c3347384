// Builders for database tests and benchmarks: a registered challenge version, users, and judging results that pass
// the shared contract.
import {
  judgingResultSchema,
  type JudgingResult,
  type Manifest,
  type Run,
  type Verdict,
} from '../contracts';
import { loadChallenge } from '../lib/core/challenge/load-manifest';
import type { Db } from '../lib/server/db/client';
import { createSubmission } from '../lib/server/db/submissions/create-submission';
import { createUser } from '../lib/server/db/accounts/create-user';
import { recordJudgingResult } from '../lib/server/db/judgings/record-judging-result';
import { upsertChallengeVersion } from '../lib/server/db/contest/upsert-challenge-version';

/** The wordcount manifest (targets linux-intel and windows-amd) under another slug, formula or version. */
export async function registerChallenge(
  db: Db,
  overrides: { slug?: string; version?: number; formula?: 'sum' | 'geomean' } = {},
): Promise<Manifest> {
  const { manifest } = await loadChallenge('wordcount');
  const m: Manifest = {
    ...manifest,
    slug: overrides.slug ?? manifest.slug,
    version: overrides.version ?? manifest.version,
    scoring: { ...manifest.scoring, formula: overrides.formula ?? manifest.scoring.formula },
  };
  await upsertChallengeVersion(db, m);
  return m;
}

let users = 0;
/** A contestant with an address no other call gets (a retried call included), so a retry never collides. */
export async function makeUser(db: Db, name?: string): Promise<string> {
  const n = ++users;
  const shown = name ?? `user${n}`;
  const { userId } = await createUser(db, { email: `${shown}-${n}@example.test`, name: shown });
  return userId;
}

function run(side: Run['side'], kind: Run['kind'], pair: number | null, wallMs: number): Run {
  return {
    side,
    kind,
    pair,
    stats: {
      wallMs,
      userMs: wallMs * 0.9,
      sysMs: wallMs * 0.05,
      maxRssBytes: 48 << 20,
      minorFaults: 1000,
      majorFaults: 0,
      voluntaryContextSwitches: 2,
      involuntaryContextSwitches: 3,
      cpuUtilization: 0.95,
    },
    outputBytes: 4096,
    outputSha256: 'ab'.repeat(32),
    correct: true,
    exitCode: 0,
    signal: null,
    counters: {
      'task-clock': { value: wallMs, unit: 'msec', status: 'counted', runningPercent: 100 },
      cycles: { value: null, unit: '', status: 'unsupported', runningPercent: null },
    },
  };
}

export interface ResultOptions {
  slug: string;
  version: number;
  target: 'linux-intel' | 'windows-amd';
  verdict?: Verdict;
  speedup?: number;
  /** Timed pairs; each adds a baseline and a solution run, after one warm-up each. */
  pairs?: number;
  judgingId?: string | null;
}

/** A judging result as a runner returns it, parsed by the contract like a consumer does. */
export function makeResult(options: ResultOptions): JudgingResult {
  const verdict = options.verdict ?? 'ACCEPTED';
  const speedup = options.speedup ?? 2;
  const pairs = options.pairs ?? 3;
  const measured = verdict === 'ACCEPTED';
  const runs = measured
    ? [
        run('baseline', 'warmup', null, 100),
        run('solution', 'warmup', null, 100 / speedup),
        ...Array.from({ length: pairs }, (_, i) => [
          run('baseline', 'timed', i, 100),
          run('solution', 'timed', i, 100 / speedup),
        ]).flat(),
      ]
    : [];
  return judgingResultSchema.parse({
    schemaVersion: 1,
    judgingId: options.judgingId ?? null,
    challenge: { slug: options.slug, version: options.version },
    target: options.target,
    verdict,
    message: measured ? `${speedup}× faster` : `verdict ${verdict}`,
    stages: {
      intake: { ok: true, reason: null, files: [], format: 'git-diff' },
      build: null,
      test: null,
      measure: measured
        ? {
            inputBytes: 1 << 20,
            inputSha256: 'cd'.repeat(32),
            cpu: 1,
            runs,
            estimate: {
              speedup,
              ciLow: speedup * 0.98,
              ciHigh: speedup * 1.02,
              confidence: 0.95,
              halfWidthRel: 0.02,
              pairs,
              method: 'median of pairwise ratios, bootstrap',
              stopReason: 'precise',
            },
            baseline: { n: pairs, minMs: 100, medianMs: 100, maxMs: 100, cv: 0 },
            solution: {
              n: pairs,
              minMs: 100 / speedup,
              medianMs: 100 / speedup,
              maxMs: 100 / speedup,
              cv: 0,
            },
          }
        : null,
    },
    warnings: [],
    host: {
      hostname: 'judge-1',
      os: options.target === 'linux-intel' ? 'linux' : 'windows',
      kernel: '6.1.0',
      cpuModel: 'Test CPU',
      cpuVendor: options.target === 'linux-intel' ? 'GenuineIntel' : 'AuthenticAMD',
      cores: 2,
      compiler: 'clang 14',
      governor: null,
      turbo: null,
      sandbox: 'bubblewrap',
      devMode: true,
      emulated: options.target === 'windows-amd',
    },
    startedAt: '2026-11-30T10:00:00.000Z',
    finishedAt: '2026-11-30T10:01:00.000Z',
    durationMs: 60_000,
    stageDurationsMs: {},
  });
}

/** A wordcount submission judged on both targets with one speedup, recorded as the scorer does. */
export async function acceptedSubmission(
  db: Db,
  options: { userId: string; version: number; speedup: number; patchText?: string },
): Promise<string> {
  const { submissionId, judgings } = await createSubmission(db, {
    userId: options.userId,
    challengeSlug: 'wordcount',
    patchText: options.patchText ?? `patch ${options.userId} ${options.speedup}`,
  });
  for (const j of judgings)
    await recordJudgingResult(db, {
      judgingId: j.judgingId,
      round: j.round,
      result: makeResult({
        slug: 'wordcount',
        version: options.version,
        target: j.target as 'linux-intel' | 'windows-amd',
        speedup: options.speedup,
      }),
    });
  return submissionId;
}

/** The stored leaderboard entries of a challenge, best score first (the raw rows, no ranking). */
export async function leaderboardEntries(
  db: Db,
  challengeSlug: string,
): Promise<{ userId: string; submissionId: string; score: number }[]> {
  return db.leaderboardEntry.findMany({
    where: { challenge: { slug: challengeSlug } },
    orderBy: [{ score: 'desc' }, { submittedAt: 'asc' }, { submissionId: 'asc' }],
    select: { userId: true, submissionId: true, score: true },
  });
}

/** A host's stored baseline for a challenge version and target, or null. */
export async function hostCalibration(
  db: Db,
  lookup: { hostFingerprintHash: string; challengeSlug: string; version: number; target: string },
): Promise<{ baselineMedianMs: number; runs: number; measuredAt: Date } | null> {
  return db.hostCalibration.findFirst({
    where: {
      hostFingerprintHash: lookup.hostFingerprintHash,
      target: {
        name: lookup.target,
        challengeVersion: { version: lookup.version, challenge: { slug: lookup.challengeSlug } },
      },
    },
    select: { baselineMedianMs: true, runs: true, measuredAt: true },
  });
}

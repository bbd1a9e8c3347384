// The contest's benchmark definition in PostgreSQL: read by every process that makes jobs, written
// once by the seed or npm start (a later writer with other wishes is told, and changes nothing),
// changed afterwards only by an organizer (update-contest-settings.ts).
import type { JobBenchmark } from '../../../../contracts';
import {
  definitionDisagreements,
  firstDefinition,
  manifestBenchmark,
  resolveBenchmark,
  type BenchmarkProposal,
} from '../../../core/challenge/benchmark-definition';
import { environmentBenchmarkProposal } from '../../../core/config/benchmark-environment';
import { appendAuditLog } from '../audit/append-audit-log';
import type { Db } from '../client';
import { NotFoundError } from '../errors';
import { BENCHMARK_DEFINITION_SELECT } from '../judgings/judging-job-settings';

/** A challenge's definition columns, with its latest version's manifest (where the sizes are). */
const CONTEST_BENCHMARK_SELECT = {
  id: true,
  slug: true,
  ...BENCHMARK_DEFINITION_SELECT,
  versions: { orderBy: { version: 'desc' }, take: 1, select: { manifest: true } },
} as const;

async function contestBenchmarkRow(db: Db, slug: string) {
  const challenge = await db.challenge.findUnique({
    where: { slug },
    select: CONTEST_BENCHMARK_SELECT,
  });
  const manifestJson = challenge?.versions[0]?.manifest;
  if (!challenge || manifestJson === undefined) throw new NotFoundError(`No challenge ${slug}`);
  return { challenge, manifest: manifestBenchmark(manifestJson) };
}

/** The contest's definition now, on its latest challenge version's manifest. */
export async function getContestBenchmark(db: Db, slug: string): Promise<JobBenchmark> {
  const { challenge, manifest } = await contestBenchmarkRow(db, slug);
  return resolveBenchmark(manifest, challenge);
}

export interface DefinedBenchmark {
  definition: JobBenchmark;
  /** True when this call wrote it (the first writer). */
  written: boolean;
  /** Where the proposal differs from the stored definition (empty when it was just written). */
  disagreements: string[];
}

/**
 * Writes the definition once: the first writer's proposal fills what is unset (revision 0 → 1,
 * audited); afterwards the stored one stands, and what the proposal wanted otherwise is returned
 * for the caller to say. Two writers racing: one update matches revision 0, the other reads.
 */
export async function defineBenchmarkOnce(
  db: Db,
  slug: string,
  proposal: BenchmarkProposal,
): Promise<DefinedBenchmark> {
  const { challenge, manifest } = await contestBenchmarkRow(db, slug);
  if (challenge.benchmarkRevision === 0) {
    const first = firstDefinition(manifest, challenge, proposal);
    const written = await db.$transaction(async (tx) => {
      const { count } = await tx.challenge.updateMany({
        where: { id: challenge.id, benchmarkRevision: 0 },
        data: first,
      });
      if (count === 1)
        await appendAuditLog(tx, {
          actorId: null,
          action: 'benchmark.define',
          subjectType: 'challenge',
          subjectId: slug,
          // Whether a seed is set, never its value: the audit log is readable by every organizer.
          payload: { ...first, benchmarkSeed: first.benchmarkSeed === null ? 'unset' : 'set' },
        });
      return count === 1;
    });
    if (written)
      return { definition: resolveBenchmark(manifest, first), written, disagreements: [] };
  }
  const definition = await getContestBenchmark(db, slug);
  return {
    definition,
    written: false,
    disagreements: definitionDisagreements(definition, proposal),
  };
}

/**
 * What a process says at start when its environment asks for another definition than a contest's
 * (a scorer started by hand on a second host, say): one line per such contest. It then uses the
 * database's, as every job is made from it.
 */
async function benchmarkEnvironmentWarnings(
  db: Db,
  proposalFor: (seedEnv: string) => BenchmarkProposal,
): Promise<string[]> {
  const challenges = await db.challenge.findMany({
    orderBy: { slug: 'asc' },
    select: CONTEST_BENCHMARK_SELECT,
  });
  const warnings: string[] = [];
  for (const c of challenges) {
    const manifestJson = c.versions[0]?.manifest;
    if (manifestJson === undefined) continue;
    const manifest = manifestBenchmark(manifestJson);
    const differs = definitionDisagreements(
      resolveBenchmark(manifest, c),
      proposalFor(manifest.seedEnv),
    );
    if (differs.length)
      warnings.push(
        `${c.slug}: this process's environment differs from the contest's benchmark definition ` +
          `(${differs.join('; ')}): using the database's (change it in the organizer console)`,
      );
  }
  return warnings;
}

/**
 * Says where this process's environment asks for another benchmark definition than the
 * database's; every job it makes carries the database's (docs/operations.md). Callers do not await
 * it: with PostgreSQL down a service still starts.
 */
export async function sayBenchmarkDisagreements(
  db: Db,
  log: (line: string) => void,
): Promise<void> {
  try {
    for (const warning of await benchmarkEnvironmentWarnings(db, environmentBenchmarkProposal))
      log(`benchmark definition: ${warning}`);
  } catch (error) {
    log(`benchmark definition: not checked (${(error as Error).message})`);
  }
}

// `perfjudge scorer`: the service that records judging results in PostgreSQL (and reconciles the
// queue with the database every minute). Runs until SIGTERM/SIGINT, then finishes its jobs in hand.
import type { Command } from 'commander';
import { UsageError } from '../usage-error';
import type { SetExitCode } from '.';

interface ScorerCliOptions {
  concurrency: string;
  reconcileEvery: string;
  reconcileOlderThan: string;
  lockMs: string;
  stalledIntervalMs: string;
  claims: boolean;
  name?: string;
  graceSeconds: string;
}

function whole(value: string, name: string, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min)
    throw new UsageError(`${name}: "${value}" must be a whole number ≥ ${min}`);
  return n;
}

export function registerScorerCommand(program: Command, setExitCode: SetExitCode): void {
  const command = program
    .command('scorer')
    .description(
      'Record judging results in PostgreSQL as the runners deliver them (a worker on the "score" queue), ' +
        'compute combined scores and the leaderboard, and re-queue what Redis lost. Needs DATABASE_URL and REDIS_URL.',
    );
  withScorerOptions(command).action(async (options: ScorerCliOptions) => {
    await serveScorer(options);
    setExitCode(0);
    // Whatever still waits for Redis or PostgreSQL must not keep a stopped scorer alive.
    setTimeout(() => process.exit(process.exitCode ?? 0), 1_000).unref();
  });
}

function withScorerOptions(command: Command): Command {
  return command
    .option('--concurrency <n>', 'score jobs handled at once', '2')
    .option(
      '--reconcile-every <seconds>',
      'reconcile the queue with the database this often; 0: never',
      '60',
    )
    .option(
      '--reconcile-older-than <seconds>',
      'leave judgings that changed more recently alone',
      '60',
    )
    .option(
      '--lock-ms <ms>',
      'how long a killed scorer holds a job before another takes it',
      '30000',
    )
    .option(
      '--stalled-interval-ms <ms>',
      'how often to look for jobs a killed scorer held',
      '30000',
    )
    .option('--no-claims', 'do not mark judgings JUDGING when a runner takes them')
    .option('--name <name>', 'this scorer in job records (processedBy)')
    .option(
      '--grace-seconds <n>',
      'on SIGTERM, how long the jobs in hand may take; then it stops anyway (Redis or PostgreSQL gone)',
      '20',
    );
}

/** The options as numbers, each checked. */
function scorerSettings(options: ScorerCliOptions) {
  return {
    graceSeconds: whole(options.graceSeconds, '--grace-seconds', 1),
    concurrency: whole(options.concurrency, '--concurrency', 1),
    reconcileEvery: whole(options.reconcileEvery, '--reconcile-every', 0),
    olderThan: whole(options.reconcileOlderThan, '--reconcile-older-than', 0),
    lockMs: whole(options.lockMs, '--lock-ms', 1000),
    stalledMs: whole(options.stalledIntervalMs, '--stalled-interval-ms', 1000),
  };
}

/** Runs the scorer until a stop signal, then closes everything it opened. */
async function serveScorer(options: ScorerCliOptions): Promise<void> {
  // Loaded when run: the database client is not needed (nor wanted) by the other commands,
  // such as the runner on a judge host.
  const { startScorer, within } = await import('../../scorer/scorer');
  const { describeBackbone, logLine, openBackbone, shutdownSignal } =
    await import('../../scorer/service');
  const { sayBenchmarkDisagreements } =
    await import('../../lib/server/db/contest/contest-benchmark');
  const settings = scorerSettings(options);

  const backbone = openBackbone('scorer');
  const stopSignal = shutdownSignal(logLine);
  const scorer = startScorer({
    db: backbone.db,
    queues: backbone.queues,
    connect: backbone.connect,
    concurrency: settings.concurrency,
    lockDurationMs: settings.lockMs,
    stalledIntervalMs: settings.stalledMs,
    reconcileEveryMs: settings.reconcileEvery === 0 ? null : settings.reconcileEvery * 1000,
    reconcileOlderThanMs: settings.olderThan * 1000,
    trackClaims: options.claims,
    name: options.name,
    log: logLine,
    onReconciled: (report) => {
      if (report.requeued.length || report.retried.length || report.stuck.length)
        logLine(
          `reconcile: checked ${report.checked}, re-queued ${report.requeued.length}, retried ${report.retried.length}, stuck ${report.stuck.length}`,
        );
    },
  });
  logLine(`scorer starting (pid ${process.pid}): ${describeBackbone(backbone)}`);
  void sayBenchmarkDisagreements(backbone.db, logLine);
  const status = await publishScorerStatus(options.name);
  // Not awaited: with Redis down a stop signal must still be heard.
  scorer
    .ready()
    .then(() => logLine('scorer ready'))
    .catch(() => {});
  await stopSignal;
  await scorer.close(settings.graceSeconds * 1000);
  await status.stop();
  if (!(await within(backbone.close(), 5_000)))
    logLine('the database or Redis did not answer while closing: stopping anyway');
  logLine('scorer stopped');
}

/**
 * The scorer says it is alive like runners do (/api/health, the console): a fail-fast connection of
 * its own, so a Redis outage never holds anything up.
 */
async function publishScorerStatus(name: string | undefined): Promise<{ stop(): Promise<void> }> {
  const { startSupervisorPublisher } = await import('../../lib/server/queue/service-status');
  const { createHttpConnection, queuePrefix } = await import('../../lib/server/queue/connection');
  const os = await import('node:os');
  const statusRedis = createHttpConnection({
    connectionName: 'perfjudge-scorer-status',
    onError: () => undefined,
  });
  const startedAt = new Date().toISOString();
  const status = startSupervisorPublisher({
    redis: statusRedis,
    prefix: queuePrefix(),
    id: `scorer-${os.hostname()}-${process.pid}`,
    report: () => ({
      supervisor: `scorer ${name ?? os.hostname()} (pid ${process.pid})`,
      services: [
        {
          name: 'scorer',
          kind: 'scorer',
          state: 'running',
          restarts: 0,
          lastExit: null,
          nextStartAt: null,
          since: startedAt,
        },
      ],
    }),
  });
  return {
    stop: async () => {
      await status.stop();
      statusRedis.disconnect();
    },
  };
}

// `perfjudge reconcile [--once] [--every 60]`: re-queues judgings that PostgreSQL waits for and Redis
// lost (the scorer does this every minute too; this runs it by hand or from cron).
import type { Command } from 'commander';
import type { ReconcileReport } from '../../scorer/reconcile';
import { UsageError } from '../usage-error';
import type { SetExitCode } from '.';

interface ReconcileCliOptions {
  once?: boolean;
  every: string;
  olderThan: string;
  json?: boolean;
}

function seconds(value: string, name: string, min: number): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < min)
    throw new UsageError(`${name}: "${value}" must be a number of seconds ≥ ${min}`);
  return n;
}

function summary(report: ReconcileReport): string {
  return (
    `checked ${report.checked} waiting judgings: re-queued ${report.requeued.length} submissions, ` +
    `retried ${report.retried.length} score jobs, ${report.stuck.length} stuck, ${report.errors.length} errors; ` +
    `re-queued ${report.finalRequeued.length} final session parts, ${report.repeatsRequeued.length} repeat judgings`
  );
}

export function registerReconcileCommand(program: Command, setExitCode: SetExitCode): void {
  program
    .command('reconcile')
    .description(
      'Re-queue submissions whose jobs Redis lost (flushed, restarted, or down at submit time). ' +
        'Exit code with --once: 0 all in order, 1 some submissions stuck or in error, 2 the pass failed.',
    )
    .option('--once', 'one pass, then exit')
    .option('--every <seconds>', 'time between passes', '60')
    .option('--older-than <seconds>', 'leave judgings that changed more recently alone', '60')
    .option('--json', 'print the report of each pass as JSON')
    .action(async (options: ReconcileCliOptions) => {
      // Loaded when run: the database client is not needed (nor wanted) by the other commands,
      // such as the runner on a judge host.
      const { reconcile, startReconciler } = await import('../../scorer/reconcile');
      const { describeBackbone, logLine, openBackbone, shutdownSignal } =
        await import('../../scorer/service');
      const { sayBenchmarkDisagreements } =
        await import('../../lib/server/db/contest/contest-benchmark');
      const every = seconds(options.every, '--every', 1);
      const olderThanMs = seconds(options.olderThan, '--older-than', 0) * 1000;
      const backbone = openBackbone('reconcile');
      const print = (report: ReconcileReport) => {
        if (options.json) process.stdout.write(`${JSON.stringify(report)}\n`);
        else logLine(summary(report));
      };
      try {
        if (options.once) {
          try {
            const report = await reconcile(backbone.db, backbone.queues, {
              olderThanMs,
              log: logLine,
            });
            print(report);
            setExitCode(report.stuck.length || report.errors.length ? 1 : 0);
          } catch (error) {
            process.stderr.write(`perfjudge: reconcile failed: ${(error as Error).message}\n`);
            setExitCode(2);
          }
          return;
        }
        logLine(`reconciling every ${every} s: ${describeBackbone(backbone)}`);
        void sayBenchmarkDisagreements(backbone.db, logLine);
        const stopSignal = shutdownSignal(logLine);
        const reconciler = startReconciler(backbone.db, backbone.queues, {
          everyMs: every * 1000,
          olderThanMs,
          log: logLine,
          onReport: print,
        });
        await stopSignal;
        await reconciler.stop();
        setExitCode(0);
      } finally {
        await backbone.close();
      }
    });
}

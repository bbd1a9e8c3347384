// `perfjudge runner --target linux-intel`: the judge host's service. Takes judging jobs from the
// target's BullMQ queue one at a time until SIGTERM/SIGINT; exit 0 after a graceful stop, 2 when
// it refuses to start (bad usage, or a host that does not match the target without --dev-mode).
import { Option, type Command } from 'commander';
import { TARGET_IDS, type TargetId } from '../../contracts';
import { env, queuePrefixSchema } from '../../lib/core/config/env';
import { createSandbox } from '../../runner/sandbox';
import {
  DEFAULT_GRACE_SECONDS,
  DEFAULT_LOCK_DURATION_MS,
  DEFAULT_STALLED_INTERVAL_MS,
  RunnerConfigError,
  startRunnerService,
  stopOnSignals,
} from '../../runner/service';
import { intOption, sizeOption } from '../option-values';
import { UsageError } from '../usage-error';
import type { SetExitCode } from '.';

interface RunnerCliOptions {
  target: TargetId;
  redis?: string;
  prefix?: string;
  cpu?: string;
  devMode?: boolean;
  /** commander's negation of --no-emulate: true unless given. */
  emulate: boolean;
  id?: string;
  concurrency: string;
  graceSeconds: string;
  lockDuration: string;
  stalledInterval: string;
  hostLock?: string;
  workRoot?: string;
  inputSize?: string;
  publicSize?: string;
  runs?: string;
  deterministic: boolean;
  /** commander's negation of --no-host-report. */
  hostReport: boolean;
}

export function registerRunnerCommand(program: Command, setExitCode: SetExitCode): void {
  const command = program
    .command('runner')
    .description(
      "Serve a target's judge queue: take judging jobs from Redis one at a time per host, judge them, " +
        'return typed results. Stops gracefully on SIGTERM/SIGINT (a second signal hands the current ' +
        'job back at once). Needs Redis only, never database credentials.',
    );
  withRunnerOptions(command).action(async (opts: RunnerCliOptions) => {
    const service = await startRunner(opts);
    const removeHandlers = stopOnSignals(service);
    await service.closed;
    removeHandlers();
    setExitCode(0);
    // A connection still waiting for Redis must not keep a stopped runner alive.
    setTimeout(() => process.exit(process.exitCode ?? 0), 1_000).unref();
  });
}

function withRunnerOptions(command: Command): Command {
  return command
    .addOption(
      new Option('-t, --target <target>', 'the target this host judges for')
        .choices(TARGET_IDS)
        .makeOptionMandatory(),
    )
    .option('--redis <url>', 'Redis URL (default: REDIS_URL, else redis://127.0.0.1:6379)')
    .option(
      '--prefix <prefix>',
      'BullMQ key prefix (default: PERFJUDGE_QUEUE_PREFIX, else perfjudge)',
    )
    .option(
      '--cpu <n>',
      "CPU to pin timed runs to (default: PERFJUDGE_CPU, the manifest's, else the last)",
    )
    .option(
      '--dev-mode',
      'run on a host that does not match the target (OS, CPU vendor); every result is labelled',
    )
    .option(
      '--no-emulate',
      'on a Linux host, refuse windows-amd instead of judging it emulated under Wine (the default when Wine is installed)',
    )
    .option(
      '--id <name>',
      'runner id in heartbeats and results (default: <hostname>-<target>-<pid>)',
    )
    .option(
      '--concurrency <n>',
      'judgings at a time: 1, as timings need the host to themselves',
      '1',
    )
    .option(
      '--grace-seconds <n>',
      'on SIGTERM, how long the current judging may take before it is handed back',
      String(DEFAULT_GRACE_SECONDS),
    )
    .option(
      '--lock-duration <ms>',
      'BullMQ job lock, renewed while judging; a dead runner’s job is retaken after about this plus the stalled interval',
      String(DEFAULT_LOCK_DURATION_MS),
    )
    .option(
      '--stalled-interval <ms>',
      'how often this runner looks for jobs whose runner died',
      String(DEFAULT_STALLED_INTERVAL_MS),
    )
    .option(
      '--host-lock <file>',
      'the host-wide judging lock file every runner on this host shares',
    )
    .option('--work-root <dir>', "parent of the judgings' scratch folders")
    .option(
      '--input-size <size>',
      'refused: a contest job carries its benchmark input (set the size in the organizer console; npm start: PERFJUDGE_INPUT_SIZE)',
    )
    .option('--public-size <size>', 'development: public input size instead of the manifest’s')
    .option('--runs <n>', 'development: most timed pairs instead of the manifest’s maxPairs')
    .option('--no-deterministic', 'development: skip the cachegrind (deterministic mode) runs')
    .option(
      '--no-host-report',
      "skip the start-up host report (the baseline's noise on the judge's CPU, timing settings) in the heartbeat",
    );
}

/** The runner service the options describe, started; bad options are usage errors. */
async function startRunner(opts: RunnerCliOptions) {
  if (intOption(opts.concurrency, '--concurrency', 1) !== 1)
    throw new UsageError(
      '--concurrency must be 1: a judging needs the host to itself (run more hosts to scale)',
    );
  const redisUrl = opts.redis ?? env().REDIS_URL;
  if (!/^rediss?:\/\/[^/]/.test(redisUrl))
    throw new UsageError(`--redis: "${redisUrl}" is not a redis:// or rediss:// URL`);
  const prefix = opts.prefix ?? env().PERFJUDGE_QUEUE_PREFIX;
  const prefixCheck = queuePrefixSchema.safeParse(prefix);
  if (!prefixCheck.success)
    throw new UsageError(`--prefix: "${prefix}": ${prefixCheck.error.issues[0]?.message}`);
  if (opts.id !== undefined && !/^[A-Za-z0-9._-]{1,64}$/.test(opts.id))
    throw new UsageError(`--id: "${opts.id}" may hold letters, digits and . _ - only`);
  const cpu = intOption(opts.cpu, '--cpu', 0) ?? env().PERFJUDGE_CPU;
  if (opts.inputSize !== undefined)
    throw new UsageError(
      '--input-size: a runner judges every contest job on the benchmark input the job carries ' +
        "(the organizer's benchmark size, else the manifest's), so one leaderboard never mixes " +
        'inputs. Set the size in the organizer console (npm start: PERFJUDGE_INPUT_SIZE); ' +
        'for a local judging, perfjudge judge --input-size.',
    );
  const publicBytes = sizeOption(opts.publicSize, '--public-size');
  const maxPairs = intOption(opts.runs, '--runs', 3);
  try {
    return await startRunnerService({
      target: opts.target,
      redisUrl,
      prefix,
      runnerId: opts.id,
      devMode: opts.devMode ?? false,
      ...(opts.emulate ? {} : { emulate: false }),
      cpu,
      sandbox: createSandbox(env().PERFJUDGE_SANDBOX),
      dataDir: env().PERFJUDGE_DATA_DIR,
      workRoot: opts.workRoot,
      hostLockFile: opts.hostLock,
      graceSeconds: intOption(opts.graceSeconds, '--grace-seconds', 0)!,
      lockDurationMs: intOption(opts.lockDuration, '--lock-duration', 1000)!,
      stalledIntervalMs: intOption(opts.stalledInterval, '--stalled-interval', 500)!,
      publicBytes,
      maxPairs,
      ...(opts.deterministic ? {} : { deterministic: false }),
      hostReport: opts.hostReport,
    });
  } catch (error) {
    if (error instanceof RunnerConfigError) throw new UsageError(error.message);
    throw error;
  }
}

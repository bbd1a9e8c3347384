// `perfjudge judge --challenge wordcount --patch FILE`: the very pipeline a queue worker runs,
// locally, with live progress and a readable report. Exit 0 ACCEPTED, 1 contestant fault, 2 otherwise.
// It takes the runners' host lock first (in turn with them), so a local judging on a judge host
// never times its runs on the same CPU as a runner's.
import { resolveJudgeInputs } from '../../lib/core/challenge/judge-inputs';
import { readFile, writeFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import {
  isContestantFault,
  judgingResultSchema,
  TARGET_IDS,
  type JudgingResult,
  type ProgressEvent,
  type TargetId,
  UnavailableError,
} from '../../contracts';
import { foldedText, speedscopeFile } from '../../lib/core/profile/folded-stacks';
import { challengeSecret, env } from '../../lib/core/config/env';
import { matchTargetHost } from '../../runner/platform';
import { checkHostMemory } from '../../runner/host/memory';
import { hostMemoryBandwidth } from '../../runner/host/memory-bandwidth';
import { formatReport } from '../../runner/judge/format-report';
import { judge } from '../../runner/judge/judge';
import {
  acquireHostLock,
  DEFAULT_HOST_LOCK_FILE,
  type HostLock,
} from '../../runner/service/host-lock';
import { checkChallengePackage } from '../../lib/core/challenge/challenge-package';
import { createSandbox, type Sandbox } from '../../runner/sandbox';
import { pickTarget, resolveChallenge } from '../challenge-args';
import { intOption, sizeOption } from '../option-values';
import { UsageError } from '../usage-error';
import type { SetExitCode } from '.';
import { DEFAULT_CHALLENGE } from '../../lib/core/challenge/default-challenge';

interface JudgeCliOptions {
  challenge: string;
  patch: string;
  target?: TargetId;
  inputSize?: string;
  publicSize?: string;
  runs?: string;
  json?: string;
  cpu?: string;
  strictHost?: boolean;
  quiet?: boolean;
  /** False with --no-cachegrind. */
  cachegrind: boolean;
  /** A file, or false with --no-host-lock. */
  hostLock: string | false;
}

/** Waits for the host lock, saying so (the runners of this host may be judging). */
async function takeHostLock(file: string, quiet: boolean): Promise<HostLock> {
  return acquireHostLock({
    file,
    owner: `perfjudge judge (pid ${process.pid})`,
    onQueue: (ahead, holder) => {
      if (quiet) return;
      if (ahead === 0) process.stderr.write('[waiting] the host is ours\n');
      else
        process.stderr.write(
          `[waiting] for the host lock (${file}): ${ahead} judging${ahead === 1 ? '' : 's'} ahead` +
            `${holder ? `, held by ${holder.owner}` : ''}\n`,
        );
    },
  });
}

/**
 * The host lock, unless another user made it (root's runners, or root judging before us): an
 * ordinary user cannot join that queue, and refusing to judge would fail the contestant for it.
 */
async function hostLockIfOurs(file: string, quiet: boolean): Promise<HostLock | null> {
  try {
    return await takeHostLock(file, quiet);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EPERM') throw error;
    process.stderr.write(
      `[waiting] the host lock ${file} belongs to another user: judging without it ` +
        '(--host-lock FILE to take turns with a lock of your own, --no-host-lock to skip it)\n',
    );
    return null;
  }
}

/** A single updating line on a terminal; one line per stage change otherwise (logs, CI). */
function progressPrinter(quiet: boolean): (event: ProgressEvent) => void {
  const tty = process.stderr.isTTY;
  let lastStage = '';
  return (event) => {
    if (quiet) return;
    const line = `[${event.stage}] ${(event.fraction * 100).toFixed(0).padStart(3)}%  ${event.message}`;
    if (tty) {
      process.stderr.write(`\r\x1b[2K${line.slice(0, (process.stderr.columns ?? 100) - 1)}`);
      if (event.stage === 'report') process.stderr.write('\n');
    } else if (event.stage !== lastStage || event.fraction === 1) {
      process.stderr.write(`${line}\n`);
    }
    lastStage = event.stage;
  };
}

export function registerJudgeCommand(program: Command, setExitCode: SetExitCode): void {
  const command = program
    .command('judge')
    .description(
      'Judge a patch as the platform does: intake, sandboxed build, tests, timed runs against the baseline, report.\n' +
        "Exit code: 0 ACCEPTED, 1 a verdict that is the patch's fault, 2 JUDGE_ERROR or bad usage.",
    );
  withJudgeOptions(command).action(async (opts: JudgeCliOptions) =>
    setExitCode(await judgeWithOptions(opts)),
  );
}

function withJudgeOptions(command: Command): Command {
  return command
    .option('-c, --challenge <slug>', 'challenge slug or folder', DEFAULT_CHALLENGE)
    .requiredOption(
      '-p, --patch <file>',
      'the patch (git diff or git format-patch output); - reads standard input',
    )
    .addOption(
      new Option('-t, --target <target>', "target to judge for (default: this host's OS)").choices(
        TARGET_IDS,
      ),
    )
    .option(
      '--input-size <size>',
      "size of the benchmark input (default: the manifest's, e.g. 256MiB)",
    )
    .option(
      '--public-size <size>',
      "size of the public input checked in the test stage (default: the manifest's)",
    )
    .option(
      '--runs <n>',
      "most timed pairs (baseline + solution) to run (default: the manifest's maxPairs)",
    )
    .option(
      '--cpu <n>',
      "CPU to pin timed runs to (default: PERFJUDGE_CPU, the manifest's, else the last CPU)",
    )
    .option('--json <file>', "also write the typed result (the queue's result schema) as JSON")
    .option(
      '--strict-host',
      'refuse to judge when this host does not match the target or its memory conditions (default: label the result dev mode)',
    )
    .option('-q, --quiet', 'no progress output')
    .option(
      '--no-cachegrind',
      'leave cachegrind out of the profile (an -O3 rebuild of both sides and a run of each under valgrind: about half of a quick local judging); the result says so',
    )
    .option(
      '--host-lock <file>',
      "the host-wide judging lock shared with this host's runners (theirs: --host-lock, or npm start's PERFJUDGE_HOST_LOCK)",
      DEFAULT_HOST_LOCK_FILE,
    )
    .option('--no-host-lock', 'judge at once, without waiting for runners on this host');
}

/** What the options ask to judge: the challenge, target, inputs and patch, on this host. */
async function judgingRequest(opts: JudgeCliOptions) {
  const challenge = await resolveChallenge(opts.challenge);
  await checkChallengePackage(challenge);
  const { manifest } = challenge;
  const target = pickTarget(challenge, opts.target);
  const inputSize = sizeOption(opts.inputSize, '--input-size') ?? manifest.inputs.benchmark.size;
  const publicSize = sizeOption(opts.publicSize, '--public-size') ?? manifest.inputs.public.size;
  const maxPairs = intOption(opts.runs, '--runs', 1);
  const cpu = intOption(opts.cpu, '--cpu', 0) ?? env().PERFJUDGE_CPU;
  let patchText: Buffer;
  try {
    patchText = opts.patch === '-' ? await readStdin() : await readFile(opts.patch);
  } catch (error) {
    throw new UsageError(`cannot read the patch ${opts.patch}: ${(error as Error).message}`);
  }

  const targetSpec = manifest.targets[target]!;
  const { matches } = await matchTargetHost(targetSpec);
  if (!matches && opts.strictHost) {
    throw new UsageError(
      `this host does not match target ${target} (${targetSpec.os}, ${targetSpec.cpuVendor})`,
    );
  }
  const memoryDifferences = await checkHostMemory(manifest.host?.memory);
  if (memoryDifferences.length && opts.strictHost)
    throw new UsageError(
      `this host's memory differs from the benchmark definition: ${memoryDifferences.join('; ')}`,
    );
  // The platform's rule for what a judging is timed on, with this machine's seed variable.
  const inputs = resolveJudgeInputs({
    challenge,
    definition: {
      sizeBytes: inputSize,
      development: inputSize < manifest.inputs.benchmark.size,
    },
    secret: challengeSecret,
    publicBytes: publicSize,
    maxPairs,
  });
  return { challenge, target, inputs, patchText, matches, cpu };
}

/** What the profile says in cachegrind's place when `judge --no-cachegrind` left it out. */
const NO_CACHEGRIND_NOTE = 'cachegrind was not run: perfjudge judge --no-cachegrind';

/** Judges as the options say, prints the report (and writes the JSON); the exit code. */
async function judgeWithOptions(opts: JudgeCliOptions): Promise<number> {
  const { challenge, target, inputs, patchText, matches, cpu } = await judgingRequest(opts);
  const sandbox = await workingSandbox();
  const lock = opts.hostLock ? await hostLockIfOurs(opts.hostLock, opts.quiet ?? false) : null;
  // Measured under the host lock (once per host and boot, then cached in the data dir).
  const memoryBandwidth = await hostMemoryBandwidth(env().PERFJUDGE_DATA_DIR, {
    log: (line) => {
      if (!opts.quiet) process.stderr.write(`${line}\n`);
    },
  });
  const result = await judge({
    challenge,
    target,
    patchText,
    sandbox,
    dataDir: env().PERFJUDGE_DATA_DIR,
    benchmark: inputs.benchmark,
    benchmarkSeedIsSecret: inputs.benchmarkSeedIsSecret,
    publicInput: inputs.publicInput,
    runPolicy: inputs.runPolicy,
    cpu,
    devMode: !matches,
    memoryBandwidth,
    ...(opts.cachegrind ? {} : { cachegrindOff: NO_CACHEGRIND_NOTE }),
    onProgress: progressPrinter(opts.quiet ?? false),
  }).finally(() => lock?.release());
  process.stdout.write(formatReport(result));
  if (opts.json) {
    await writeFile(opts.json, `${JSON.stringify(judgingResultSchema.parse(result), null, 2)}\n`);
    await writeProfileFiles(opts.json, result, opts.quiet ?? false);
  }
  return result.verdict === 'ACCEPTED' ? 0 : isContestantFault(result.verdict) ? 1 : 2;
}

/**
 * The sampled profile next to the JSON result: each side's folded stacks (flamegraph.pl, inferno)
 * and both in one speedscope file (speedscope.app).
 */
async function writeProfileFiles(
  jsonFile: string,
  result: JudgingResult,
  quiet: boolean,
): Promise<void> {
  const sampled = result.stages.profile?.sampled;
  if (!sampled) return;
  const base = jsonFile.replace(/\.json$/, '');
  const files = {
    [`${base}.baseline.folded`]: foldedText(sampled.baseline),
    [`${base}.solution.folded`]: foldedText(sampled.solution),
    [`${base}.speedscope.json`]: JSON.stringify(
      speedscopeFile(`${result.challenge.slug} on ${result.target}`, [
        { name: 'baseline', profile: sampled.baseline },
        { name: 'solution', profile: sampled.solution },
      ]),
    ),
  };
  for (const [file, text] of Object.entries(files)) await writeFile(file, text);
  if (!quiet) process.stderr.write(`flame graph data: ${Object.keys(files).join(', ')}\n`);
}

/** The sandbox, checked before anything else: without it this machine does not judge at all. */
async function workingSandbox(): Promise<Sandbox> {
  const sandbox = createSandbox(env().PERFJUDGE_SANDBOX);
  try {
    await sandbox.check();
  } catch (error) {
    // Whatever stops the self-test (no bwrap, no user namespaces, a binary it cannot run).
    const why =
      error instanceof UnavailableError
        ? error.message
        : `the sandbox does not start (${(error as Error).message})`;
    throw new UsageError(
      `this machine cannot judge: ${why}\n` +
        'The judge builds and runs patches only inside its sandbox, never unsandboxed. ' +
        '`perfjudge doctor` says what is missing and how to get it.',
    );
  }
  return sandbox;
}

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

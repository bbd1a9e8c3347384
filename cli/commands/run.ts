// `perfjudge run <challenge> --input FILE [--tree DIR]`: builds (cached) the baseline or a working
// copy with the judge's harness and runs it on one input, its output on our stdout.
import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Option, type Command } from 'commander';
import { TARGET_IDS, type TargetId } from '../../contracts';
import { CHALLENGES_DIR } from '../../lib/core/challenge/load-manifest';
import { checkChallengePackage } from '../../lib/core/challenge/challenge-package';
import { pickTarget, resolveChallenge } from '../challenge-args';
import { cachedBuild } from '../../runner/build';
import { UsageError } from '../usage-error';
import type { SetExitCode } from '.';

const DEFAULT_CACHE_DIR = path.join(path.dirname(CHALLENGES_DIR), '.data', 'builds');

interface RunOptions {
  input: string;
  tree?: string;
  target?: TargetId;
  cacheDir: string;
}

const progress = (line: string) => process.stderr.write(`perfjudge: ${line}\n`);

/** Runs the binary with our stdout and stderr, so its output streams through unchanged. */
function runBinary(
  binary: string,
  input: string,
): Promise<{ code: number | null; signal: string | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, [input], { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
}

async function run(challengeArg: string, options: RunOptions): Promise<number> {
  const challenge = await resolveChallenge(challengeArg);
  await checkChallengePackage(challenge);
  const input = path.resolve(options.input);
  const inputInfo = await stat(input).catch(() => undefined);
  if (!inputInfo) throw new UsageError(`input file not found: ${options.input}`);
  if (inputInfo.isDirectory())
    throw new UsageError(`input must be a file, not a folder: ${options.input}`);
  let sourceDir = challenge.templateDir;
  if (options.tree !== undefined) {
    sourceDir = path.resolve(options.tree);
    const treeInfo = await stat(sourceDir).catch(() => undefined);
    if (!treeInfo?.isDirectory()) throw new UsageError(`--tree is not a folder: ${options.tree}`);
  }
  const targetId = pickTarget(challenge, options.target);
  const target = challenge.manifest.targets[targetId];
  if (!target) throw new UsageError(`unknown target ${targetId}`);
  const solution = options.tree !== undefined;

  const what = solution ? `solution in ${sourceDir}` : 'baseline';
  const toolchain = target.toolchain;
  progress(
    `preparing the ${what} of ${challenge.manifest.slug} for ${targetId} ` +
      `(${toolchain.cxx} ${toolchain.flags.join(' ')}${solution ? ' -DSOLUTION' : ''})`,
  );
  const build = await cachedBuild({
    challenge,
    sourceDir,
    toolchain,
    solution,
    cacheRoot: path.resolve(options.cacheDir),
  });
  if (!build.ok || !build.binary) {
    if (build.log.trim() !== build.message)
      process.stderr.write(build.log.endsWith('\n') ? build.log : `${build.log}\n`);
    progress(`build failed: ${build.message ?? 'unknown reason'}`);
    // A contestant's compile error or compiler bomb is theirs (1); a missing toolchain is not (2).
    return build.failure === 'compile' || build.failure === 'timeout' ? 1 : 2;
  }
  progress(
    build.cached
      ? `using the cached build ${build.key.slice(0, 12)}`
      : `built in ${(build.durationMs / 1000).toFixed(1)} s`,
  );

  progress(`running ${path.basename(build.binary)} ${input}`);
  const exit = await runBinary(build.binary, input);
  if (exit.code === 0) return 0;
  progress(
    exit.signal
      ? `${challenge.manifest.slug} was killed by ${exit.signal}`
      : `${challenge.manifest.slug} exited with code ${exit.code}`,
  );
  return 1;
}

export function registerRunCommand(program: Command, setExitCode: SetExitCode): void {
  program
    .command('run')
    .description(
      "Build the baseline (or your working copy with -DSOLUTION) with the judge's harness, then " +
        'run it on one input and print its output. Builds are cached. Progress goes to stderr.\n' +
        'Exit codes: 0 the program succeeded, 1 a build error or the program failed, 2 bad usage ' +
        'or a missing toolchain.',
    )
    .argument('<challenge>', 'challenge slug (e.g. wordcount) or path to a challenge folder')
    .requiredOption('-i, --input <file>', 'the input file the program reads')
    .option(
      '-t, --tree <dir>',
      'your working copy (the template with your changes), built with -DSOLUTION; ' +
        'without it the pristine template is built as the baseline',
    )
    .addOption(
      new Option(
        '--target <target>',
        "the target whose compiler and flags to use (default: the first target for this host's OS)",
      ).choices(TARGET_IDS),
    )
    .option('--cache-dir <dir>', 'where built binaries are cached', DEFAULT_CACHE_DIR)
    .action(async (challenge: string, options: RunOptions) => {
      setExitCode(await run(challenge, options));
    });
}

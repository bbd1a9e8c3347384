// `perfjudge doctor`: which of the judge's requirements this machine meets and how to get the rest,
// and how fit it is to time programs (noise of the baseline, load, governor, turbo, SMT, isolation,
// the manifest's memory conditions). Exit 0 when nothing is bad, 1 otherwise. No database, no web:
// it ships in the contestants' packed CLI.
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { env } from '../../lib/core/config/env';
import { hostReport } from '../../runner/host/doctor';
import { formatHostReport } from '../../runner/host/format-host-report';
import { createSandbox } from '../../runner/sandbox';
import { resolveChallenge } from '../challenge-args';
import { intOption, sizeOption } from '../option-values';
import type { SetExitCode } from '.';
import { DEFAULT_CHALLENGE } from '../../lib/core/challenge/default-challenge';

interface DoctorCliOptions {
  challenge: string;
  cpu?: string;
  json?: string | boolean;
  noise: boolean;
  runs?: string;
  inputSize?: string;
  hostRoot?: string;
}

export function registerDoctorCommand(program: Command, setExitCode: SetExitCode): void {
  program
    .command('doctor')
    .description(
      "Check this machine for the judge: its requirements (compiler with the manifest's flags, CMake, Ninja, " +
        'sandbox, user namespaces, perf, valgrind, Wine + MinGW-w64) with install commands, and what hurts ' +
        "timing (the baseline's run-to-run noise on the judge's CPU, other load, governor, turbo, SMT sibling, " +
        'isolated CPUs, perf_event_paranoid, the manifest’s memory conditions), each ok / warn / bad / unknown ' +
        'with its fix.\nExit code: 0 nothing bad, 1 something bad, 2 bad usage.',
    )
    .option('-c, --challenge <slug>', 'challenge slug or folder', DEFAULT_CHALLENGE)
    .option('--cpu <n>', "the judge's CPU (default: PERFJUDGE_CPU, the manifest's, else the last)")
    .option('--json [file]', 'print the report as JSON (to the file when given) instead of text')
    .option('--no-noise', "skip the baseline's noise measurement (a few seconds)")
    .option('--runs <n>', 'timed runs of the noise measurement (default 7)')
    .option('--input-size <size>', 'input of the noise measurement (default 8MiB)')
    .option(
      '--host-root <dir>',
      'read /proc and /sys under this folder (testing with recorded files)',
    )
    .action(async (opts: DoctorCliOptions) => {
      const challenge = await resolveChallenge(opts.challenge);
      const cpu = intOption(opts.cpu, '--cpu', 0) ?? env().PERFJUDGE_CPU;
      const runs = intOption(opts.runs, '--runs', 2);
      const inputBytes = sizeOption(opts.inputSize, '--input-size');
      const json = opts.json !== undefined;
      const report = await hostReport({
        challenge,
        sandbox: createSandbox(env().PERFJUDGE_SANDBOX),
        dataDir: env().PERFJUDGE_DATA_DIR,
        cpu,
        noise: opts.noise,
        noiseRuns: runs,
        noiseInputBytes: inputBytes,
        // Truthy, not just defined: an empty --host-root is the default root, not ''.
        ...(opts.hostRoot ? { root: opts.hostRoot } : {}),
        log: json ? undefined : (line) => process.stderr.write(`${line}\n`),
      });
      const text = json ? `${JSON.stringify(report, null, 2)}\n` : formatHostReport(report);
      if (typeof opts.json === 'string') await writeFile(opts.json, text);
      else process.stdout.write(text);
      setExitCode(report.verdict === 'bad' ? 1 : 0);
    });
}

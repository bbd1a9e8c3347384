// The chaos drill for a longer run (dev/chaos/scenario.ts; tests/integration/chaos.test.ts runs a
// short one in CI): real runners for both targets, the scorer, a private PostgreSQL and a private
// Redis prefix, seeded submissions and seeded faults; then the invariants and the figures.
//   npm run bench -- chaos [--seed S] [--submissions 20] [--faults 12] [--arrival-seconds 60]
// Fails when an invariant does not hold (the violations and the services' last lines are printed).
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT } from '../lib/core/config/env';
import { formatFigures } from '../dev/chaos/invariants';
import { newSeed } from '../dev/chaos/plan';
import { runChaos } from '../dev/chaos/scenario';

interface Options {
  seed: string;
  submissions: number;
  faults: number;
  arrivalMs: number;
}

function whole(option: string, value: string | undefined, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min)
    throw new Error(`${option}: "${value}" is not a whole number of at least ${min}`);
  return n;
}

function parseArgs(args: string[]): Options {
  const options: Options = { seed: newSeed(), submissions: 20, faults: 12, arrivalMs: 60_000 };
  for (let i = 0; i < args.length; i += 2) {
    const value = args[i + 1];
    switch (args[i]) {
      case '--seed':
        if (!value || !/^[A-Za-z0-9_-]{1,32}$/.test(value))
          throw new Error(`--seed: "${value}" must be 1–32 letters, digits, _ or -`);
        options.seed = value;
        break;
      case '--submissions':
        options.submissions = whole('--submissions', value, 1);
        break;
      case '--faults':
        options.faults = whole('--faults', value, 0);
        break;
      case '--arrival-seconds':
        options.arrivalMs = whole('--arrival-seconds', value, 0) * 1000;
        break;
      default:
        throw new Error(
          `unknown option ${args[i]} (--seed, --submissions, --faults, --arrival-seconds)`,
        );
    }
  }
  return options;
}

export default async function chaos(args: string[]): Promise<void> {
  const options = parseArgs(args);
  const say = (line: string) => process.stdout.write(`${line}\n`);
  say(
    `chaos drill: seed ${options.seed} (replay: npm run bench -- chaos --seed ${options.seed} ` +
      `--submissions ${options.submissions} --faults ${options.faults})`,
  );
  const logFile = path.join(REPO_ROOT, '.data', 'bench', `chaos-${options.seed}.log`);
  await mkdir(path.dirname(logFile), { recursive: true });
  const serviceLog = createWriteStream(logFile);
  const report = await runChaos({
    ...options,
    // Generous: each Wine judging takes 10–30 s on a loaded 2-core machine.
    settleTimeoutMs: 120_000 + options.submissions * 60_000,
    log: (line) => {
      say(`  ${new Date().toISOString().slice(11, 23)} ${line}`);
      serviceLog.write(`${new Date().toISOString()} [drill] ${line}\n`);
    },
    echo: (line) => serviceLog.write(`${line}\n`),
  }).finally(() => serviceLog.end());
  say(formatFigures(report.verdict.figures, report.wallMs));
  say(`every service's lines: ${path.relative(REPO_ROOT, logFile)}`);
  if (report.verdict.violations.length) {
    say(`\n${report.verdict.violations.length} invariant(s) broken:`);
    for (const v of report.verdict.violations) say(`  - ${v}`);
    say(`\n${report.logs()}`);
    throw new Error(`chaos drill seed ${options.seed}: invariants broken`);
  }
  say('every invariant held');
}

// Duet mode's bias: the baseline and a ladder step run at the same time on two CPUs (swapping CPUs
// every round, so neither side keeps the better one), against the same two programs timed
// sequentially and interleaved on one CPU (the judge's way). Memory-bound programs slow each
// other through the shared cache and memory bus, so the duet ratio may differ from the sequential
// one; the judge may use duet only on a host where this bench shows |bias| ≤ 1% for every step.
// Prints figures only: nothing here is wired into the judge.
//
//   npm run bench -- duet [--size 32MiB] [--rounds 10] [--steps id,id]
import os from 'node:os';
import path from 'node:path';
import { parseByteSize } from '../contracts';
import { REPO_ROOT } from '../lib/core/config/env';
import { loadChallenge } from '../lib/core/challenge/load-manifest';
import { median } from '../lib/core/stats';
import { createSandbox } from '../runner/sandbox';
import { LADDER, ladderStep, prepareLadderStep } from './ladder/steps';

const DATA_DIR = path.join(REPO_ROOT, '.data', 'bench');
/** The bias within which a host may judge in duet mode. */
const DUET_TOLERANCE = 0.01;

interface Options {
  sizeBytes: number;
  rounds: number;
  steps: string[];
}

function parseArgs(args: string[]): Options {
  const options: Options = {
    sizeBytes: 32 << 20,
    rounds: 10,
    steps: LADDER.map((s) => s.id).filter((id) => id !== 'baseline-copy'),
  };
  for (let i = 0; i < args.length; i++) {
    const value = args[i + 1];
    if (value === undefined) throw new Error(`${args[i]} needs a value`);
    if (args[i] === '--size') {
      const size = parseByteSize(value);
      if (!size) throw new Error(`--size: "${value}" is not a size`);
      options.sizeBytes = size;
    } else if (args[i] === '--rounds') options.rounds = Number(value);
    else if (args[i] === '--steps') options.steps = value.split(',').map((id) => ladderStep(id).id);
    else throw new Error(`unknown option ${args[i]} (--size, --rounds, --steps)`);
    i++;
  }
  if (!Number.isInteger(options.rounds) || options.rounds < 2 || options.rounds > 1000)
    throw new Error('--rounds must be a whole number from 2 to 1000');
  return options;
}

export default async function run(args: string[]): Promise<void> {
  const options = parseArgs(args);
  if (os.cpus().length < 2) throw new Error('duet mode needs two CPUs');
  const challenge = await loadChallenge('wordcount');
  const sandbox = createSandbox('bubblewrap');
  const [cpuA, cpuB] = [os.cpus().length - 2, os.cpus().length - 1];
  console.log(
    `duet vs sequential on ${options.sizeBytes >> 20} MiB, ${options.rounds} rounds per step, CPUs ${cpuA} and ${cpuB} (load average ${os.loadavg()[0]!.toFixed(1)})`,
  );
  console.log('  step                    sequential  duet    bias     verdict');
  const biases: number[] = [];
  for (const id of options.steps) {
    const step = await prepareLadderStep({
      challenge,
      id,
      sizeBytes: options.sizeBytes,
      sandbox,
      dataDir: DATA_DIR,
    });
    try {
      const sequential: number[] = [];
      const duet: number[] = [];
      for (let r = 0; r < options.rounds; r++) {
        // Sequential: B then S on one CPU, in the order the judge uses.
        const b = await step.time('baseline', cpuB);
        sequential.push(b / (await step.time('solution', cpuB)));
        // Duet: both at once, CPUs swapped every round.
        const [bCpu, sCpu] = r % 2 === 0 ? [cpuA, cpuB] : [cpuB, cpuA];
        const [bd, sd] = await Promise.all([
          step.time('baseline', bCpu),
          step.time('solution', sCpu),
        ]);
        duet.push(bd / sd);
      }
      const seq = median(sequential);
      const du = median(duet);
      const bias = du / seq - 1;
      biases.push(bias);
      console.log(
        `  ${id.padEnd(22)}  ${seq.toFixed(3).padStart(10)}  ${du.toFixed(3).padStart(6)}  ${(bias * 100).toFixed(2).padStart(6)}%  ${Math.abs(bias) <= DUET_TOLERANCE ? 'within 1%' : 'BIASED'}`,
      );
    } finally {
      await step.close();
    }
  }
  const ok = biases.every((b) => Math.abs(b) <= DUET_TOLERANCE);
  console.log(
    `  duet mode on this host: ${ok ? 'every step within 1%: may be enabled' : 'bias beyond 1%: keep sequential judging'} (load average now ${os.loadavg()[0]!.toFixed(1)})`,
  );
}

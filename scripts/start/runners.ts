// Which runners `npm start` starts: one per target this host can serve, and why a target is not.
import path from 'node:path';
import {
  formatByteSize,
  TARGET_IDS,
  type JobBenchmark,
  type Target,
  type TargetId,
} from '../../contracts';
import type { Challenge } from '../../lib/core/challenge/load-manifest';
import { ConfigError } from '../../lib/core/config/env';
import type { StartEnv } from '../../lib/core/config/start-env';
import { matchTargetHost, type TargetHostMatch } from '../../runner/platform';

export interface RunnerPlan {
  target: TargetId;
  args: string[];
  /** What the summary says about this target. */
  note: string;
}

/** One runner per target this host can serve, with the reasons for development mode spelled out. */
export async function planRunners(
  config: StartEnv,
  challenge: Challenge,
  definition: JobBenchmark,
  dataDir: string,
): Promise<{
  plans: RunnerPlan[];
  notServed: string[];
}> {
  const wanted: TargetId[] =
    config.PERFJUDGE_TARGETS === 'auto'
      ? [...TARGET_IDS]
      : config.PERFJUDGE_TARGETS === 'none'
        ? []
        : (config.PERFJUDGE_TARGETS.split(',') as TargetId[]);
  for (const t of wanted)
    if (!TARGET_IDS.includes(t))
      throw new ConfigError(`PERFJUDGE_TARGETS: unknown target "${t}" (${TARGET_IDS.join(', ')})`);
  const manifestSize = challenge.manifest.inputs.benchmark.size;
  const common = commonRunnerArgs(config, definition, manifestSize, dataDir);
  const plans: RunnerPlan[] = [];
  const notServed: string[] = [];
  for (const [target, plan] of [
    ['linux-intel', linuxRunnerPlan],
    ['windows-amd', windowsRunnerPlan],
  ] as const) {
    if (!wanted.includes(target)) continue;
    const spec = challenge.manifest.targets[target];
    if (!spec) {
      notServed.push(`${target}: not served (${challenge.manifest.slug} has no such target)`);
      continue;
    }
    const planned = await plan(common, spec, await matchTargetHost(spec));
    if (typeof planned === 'string') notServed.push(`${target}: not served (${planned})`);
    else plans.push(planned);
  }
  return { plans, notServed };
}

/** What every runner of this start gets: why its results are development, and the stop grace. */
export interface CommonRunnerArgs {
  /** Why results are development mode whatever the host (said in the summary). */
  reasons: string[];
  grace: string[];
}

function commonRunnerArgs(
  config: StartEnv,
  definition: JobBenchmark,
  manifestSize: number,
  dataDir: string,
): CommonRunnerArgs {
  const reasons: string[] = [];
  // The benchmark definition (size, seed, pair budget) is the contest's, in the database and
  // carried by every job; a development one labels the results itself. Runners get no size or
  // pair budget of their own.
  if (definition.sizeBytes < manifestSize)
    reasons.push(
      `contest benchmark input ${formatByteSize(definition.sizeBytes)} instead of the manifest's ${formatByteSize(manifestSize)}`,
    );
  if (definition.maxPairs !== undefined)
    reasons.push(`at most ${definition.maxPairs} timed pairs (the contest's run policy)`);
  // Whoever holds the host lock sweeps the work root: a private lock needs a private work root.
  const workRoot =
    config.PERFJUDGE_WORK_ROOT ??
    (config.PERFJUDGE_HOST_LOCK ? path.join(dataDir, 'runner-work') : undefined);
  const grace = [
    '--grace-seconds',
    String(Math.max(1, config.PERFJUDGE_STOP_GRACE_SECONDS - 5)),
    ...(config.PERFJUDGE_HOST_LOCK ? ['--host-lock', config.PERFJUDGE_HOST_LOCK] : []),
    ...(workRoot ? ['--work-root', workRoot] : []),
  ];
  return { reasons, grace };
}

/** The plan, or why this host cannot serve the target. */
async function linuxRunnerPlan(
  { reasons, grace }: CommonRunnerArgs,
  spec: Target,
  match: TargetHostMatch,
): Promise<RunnerPlan | string> {
  if (!match.sameOs) return 'this is not Linux';
  const why = [...reasons];
  if (!match.matches)
    why.unshift(
      `this CPU is ${match.hostVendor}, not ${spec.cpuVendor}: the runner refuses it otherwise`,
    );
  // The runner's own dev mode: another CPU (a development definition labels its results itself).
  return {
    target: 'linux-intel',
    args: [...(match.matches ? [] : ['--dev-mode']), ...grace],
    note: why.length
      ? `linux-intel: development mode, results labelled (${why.join('; ')})`
      : 'linux-intel: official judging on this Intel host',
  };
}

async function windowsRunnerPlan(
  { reasons, grace }: CommonRunnerArgs,
  _spec: Target,
  match: TargetHostMatch,
): Promise<RunnerPlan | string> {
  // The emulator the Windows platform would judge with here (`wine --version`).
  const wine = match.emulator;
  if (!wine)
    return 'Wine is not installed: apt-get install wine wine64 mingw-w64, then start again';
  return {
    target: 'windows-amd',
    // Emulated under Wine is never the target's hardware: always development mode.
    args: ['--dev-mode', ...grace],
    note: `windows-amd: emulated under ${wine}, development mode, results labelled${
      reasons.length ? ` (${reasons.join('; ')})` : ''
    }`,
  };
}

// `npm start` after the bootstrap (scripts/start.mjs): the whole platform on this machine. Private
// PostgreSQL and Redis under .data/ unless DATABASE_URL / REDIS_URL are set, migrations and the
// seed, pre-generated inputs, the production web build, then the web server, the scorer and one
// runner per target this host can serve. Ctrl-C (SIGINT) or SIGTERM stops everything in order.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { chmod, mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import {
  formatByteSize,
  parseByteSize,
  TARGET_IDS,
  type JobBenchmark,
  type ServiceStatus,
  type Target,
  type TargetId,
} from '../../contracts';
import { describeDefinition } from '../../lib/core/challenge/benchmark-definition';
import { listChallenges, loadChallenge, type Challenge } from '../../lib/core/challenge/load-manifest';
import { challengeSecret, ConfigError, env, REPO_ROOT } from '../../lib/core/config/env';
import { childEnvironment, startEnv, type StartEnv } from '../../lib/core/config/start-env';
import { createDbClient } from '../../lib/server/db/client';
import { applyMigrations } from '../../lib/server/db/migrate';
import { seed } from '../../prisma/seed';
import { matchTargetHost, type TargetHostMatch } from '../../runner/platform';
import { ensureInput, referenceSha256, type InputSpec } from '../../lib/core/challenge/inputs';
import { createHttpConnection } from '../../lib/server/queue/connection';
import { startSupervisorPublisher, type SupervisorPublisher } from '../../lib/server/queue/service-status';
import { ChildExitedError, runPrefixed, startChild, type Child } from './process';
import { Supervisor, type Supervised } from './supervise';
import {
  findPostgresBin,
  portAnswers,
  startPrivatePostgres,
  startPrivateRedis,
  waitFor,
} from './private-stores';

const CHALLENGES = ['wordcount'];
const BIN = path.join(REPO_ROOT, 'bin', 'perfjudge.mjs');
const NEXT_BIN = path.join(REPO_ROOT, 'node_modules', 'next', 'dist', 'bin', 'next');
/** `next start` with client addresses from the connection (lib/core/net/client-address.ts). */
const WEB_SERVER = path.join(REPO_ROOT, 'scripts', 'web-server.mjs');

/** When `npm start` began (scripts/start.mjs sets it before installing anything). */
let beganAt = Date.now();
const elapsed = () => `${((Date.now() - beganAt) / 1000).toFixed(0)} s`;
// Every line says how long since `npm start` began, so a slow step shows where the time went.
const say = (line: string) => process.stdout.write(`[start ${elapsed()}] ${line}\n`);
const warn = (line: string) => process.stderr.write(`[start ${elapsed()}] ${line}\n`);

interface Secrets {
  authSecret: string;
  organizer: { email: string; password: string };
  /** Benchmark seeds by the variable each manifest names (PERFJUDGE_WORDCOUNT_SEED). */
  seeds: Record<string, string>;
}

/** Generated once and kept in .data/secrets.json (mode 600), so a second start reuses them. */
async function loadSecrets(dataDir: string, seedNames: string[]): Promise<Secrets> {
  const file = path.join(dataDir, 'secrets.json');
  let secrets: Partial<Secrets> = {};
  try {
    secrets = JSON.parse(await readFile(file, 'utf8')) as Partial<Secrets>;
  } catch {
    // First start.
  }
  const token = () => randomBytes(24).toString('base64url');
  const complete: Secrets = {
    authSecret: secrets.authSecret ?? randomBytes(32).toString('base64url'),
    organizer: secrets.organizer ?? { email: 'organizer@perfjudge.local', password: token() },
    seeds: { ...secrets.seeds },
  };
  for (const name of seedNames) complete.seeds[name] ??= token();
  if (JSON.stringify(complete) !== JSON.stringify(secrets)) {
    await writeFile(file, `${JSON.stringify(complete, null, 2)}\n`, { mode: 0o600 });
    await chmod(file, 0o600);
  }
  return complete;
}

/** The newest modification time of the web app's sources (what `next build` compiles). */
function newestSource(): number {
  let newest = 0;
  const visit = (p: string) => {
    let s;
    try {
      s = statSync(p);
    } catch {
      return;
    }
    if (s.isDirectory()) {
      if (/(^|\/)(node_modules|generated|\.next[^/]*)$/.test(p)) return;
      for (const entry of readdirSync(p)) visit(path.join(p, entry));
    } else newest = Math.max(newest, s.mtimeMs);
  };
  for (const p of [
    'app',
    'lib',
    'contracts',
    'public',
    'next.config.ts',
    'package-lock.json',
    'tsconfig.json',
    'prisma/schema.prisma',
  ])
    visit(path.join(REPO_ROOT, p));
  return newest;
}

/** Prints a generator's progress by watching its temporary file grow. */
async function withFileProgress<T>(
  label: string,
  dir: string,
  totalBytes: number,
  work: Promise<T>,
): Promise<T> {
  const started = Date.now();
  let lastShown = -1;
  const timer = setInterval(() => {
    void readdir(dir)
      .then(async (names) => {
        let bytes = 0;
        for (const n of names.filter((n) => n.endsWith('.tmp')))
          bytes = Math.max(bytes, (await stat(path.join(dir, n)).catch(() => null))?.size ?? 0);
        const percent = Math.min(99, Math.floor((bytes / totalBytes) * 100));
        if (percent >= lastShown + 10 || (percent > lastShown && Date.now() - started > 20_000)) {
          lastShown = percent;
          say(`${label}: ${percent}%`);
        }
      })
      .catch(() => {});
  }, 1000);
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}

async function pregenerateInputs(
  challenge: Challenge,
  benchmark: InputSpec,
  dataDir: string,
): Promise<void> {
  const { inputs } = challenge.manifest;
  const specs: [string, InputSpec, boolean][] = [
    ['benchmark input', benchmark, true],
    [
      'public input',
      { seed: inputs.public.seed, sizeBytes: inputs.public.size, rareSeparators: false },
      true,
    ],
    [
      'cachegrind input',
      {
        seed: inputs.deterministic.seed,
        sizeBytes: inputs.deterministic.size,
        rareSeparators: false,
      },
      false,
    ],
  ];
  const inputsDir = path.join(dataDir, 'inputs');
  await mkdir(inputsDir, { recursive: true });
  for (const [label, spec, withReference] of specs) {
    const name = `${challenge.manifest.slug} ${label} (${formatByteSize(spec.sizeBytes)})`;
    const started = Date.now();
    const input = await withFileProgress(
      `generating the ${name}`,
      inputsDir,
      spec.sizeBytes,
      ensureInput(challenge, spec, dataDir),
    );
    if (withReference) await referenceSha256(challenge, input, dataDir);
    const seconds = (Date.now() - started) / 1000;
    say(
      `${name}: ${input.cached ? 'ready (generated by an earlier start)' : `generated in ${seconds.toFixed(1)} s`}`,
    );
  }
}

interface RunnerPlan {
  target: TargetId;
  args: string[];
  /** What the summary says about this target. */
  note: string;
}

/** One runner per target this host can serve, with the reasons for development mode spelled out. */
async function planRunners(
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
interface CommonRunnerArgs {
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

/** The contest's development benchmark size, when PERFJUDGE_INPUT_SIZE asks for another. */
function developmentBenchmarkBytes(config: StartEnv, manifestSize: number): number | undefined {
  if (config.PERFJUDGE_INPUT_SIZE === 'manifest') return undefined;
  const bytes = parseByteSize(config.PERFJUDGE_INPUT_SIZE)!;
  return bytes === manifestSize ? undefined : bytes;
}

async function healthy(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(5_000) });
    return response.status === 200;
  } catch {
    return false;
  }
}

/** A step that cannot go on: said once, and everything started so far is stopped. */
class StartFailure extends Error {
  override name = 'StartFailure';
}

/**
 * Everything started so far and how to stop it. Children not supervised yet (the web build;
 * services while they start for the first time) are `pending`; the supervisor restarts a child
 * that dies, with backoff, while the rest keeps serving. The platform stops only when asked, then
 * in reverse order of need: web and runners (nothing new comes in, judgings in hand finish or are
 * handed back), then the scorer, then the stores.
 */
interface Lifecycle {
  pending: Set<Child>;
  supervisor: Supervisor;
  publisher: SupervisorPublisher | null;
  statusRedis: Redis | null;
  /** Set once stopping began; resolves to the exit code. */
  stopping: Promise<number> | null;
  stopAll(code: number): Promise<number>;
  /** Resolves when a signal asked the platform to stop, once it has. */
  stopped: Promise<number>;
}

function createLifecycle(graceMs: number): Lifecycle {
  const life: Lifecycle = {
    pending: new Set(),
    supervisor: new Supervisor({ log: say, onChange: () => life.publisher?.publish() }),
    publisher: null,
    statusRedis: null,
    stopping: null,
    stopAll: (code) => {
      life.stopping ??= stopEverything(life, graceMs).then(() => code);
      return life.stopping;
    },
    stopped: new Promise<number>((resolve) => {
      const onSignal = (signal: NodeJS.Signals) => {
        if (life.stopping) return; // a second Ctrl-C: the grace periods still apply
        say(`${signal} received`);
        void life.stopAll(0).then(resolve);
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
    }),
  };
  return life;
}

async function stopEverything(life: Lifecycle, graceMs: number): Promise<void> {
  say('stopping…');
  const { supervisor } = life;
  supervisor.stopRestarting();
  await Promise.all([...life.pending].map((c) => c.stop(graceMs)));
  await supervisor.stop((_, kind) => kind === 'web' || kind === 'runner', graceMs);
  await supervisor.stop((_, kind) => kind === 'scorer', graceMs);
  await life.publisher?.stop();
  life.statusRedis?.disconnect();
  for (const name of ['redis', 'postgres']) {
    if (!supervisor.child(name)) continue;
    say(`stopping ${name}`);
    await supervisor
      .stop((n) => n === name, graceMs)
      .catch((error: Error) => warn(`${name}: ${error.message}`));
  }
  say(`stopped (${elapsed()} after npm start began)`);
}

/** What every step after the first needs: the configuration, the challenge and the secrets. */
interface StartPlan {
  config: StartEnv;
  dataDir: string;
  challenge: Challenge;
  /** Benchmark seeds by the variable each manifest names. */
  seeds: Record<string, string>;
  organizer: { email: string; password: string };
  authSecret: string;
  publicUrl: string;
  baseEnv: NodeJS.ProcessEnv;
}

async function loadPlan(config: StartEnv, dataDir: string): Promise<StartPlan> {
  await mkdir(dataDir, { recursive: true });
  const challenge = await loadChallenge(CHALLENGES[0]!);
  // Every challenge on disk: a runner outside development mode serves them all and needs each seed.
  const seedNames = [
    ...new Set((await listChallenges()).map((c) => c.manifest.inputs.benchmark.seedEnv)),
  ];
  const secrets = await loadSecrets(dataDir, seedNames);
  return {
    config,
    dataDir,
    challenge,
    seeds: Object.fromEntries(
      seedNames.map((name) => [name, challengeSecret(name) ?? secrets.seeds[name]!]),
    ),
    organizer: {
      email: env().PERFJUDGE_ORGANIZER_EMAIL ?? secrets.organizer.email,
      password: env().PERFJUDGE_ORGANIZER_PASSWORD ?? secrets.organizer.password,
    },
    authSecret: env().PERFJUDGE_AUTH_SECRET ?? secrets.authSecret,
    publicUrl: config.PERFJUDGE_PUBLIC_URL ?? `http://localhost:${config.PORT}`,
    baseEnv: childEnvironment({}),
  };
}

/** What would fail later, said now, in a second, rather than after the build. */
async function checkHost(plan: StartPlan): Promise<void> {
  const { config } = plan;
  if (await portAnswers(config.PORT))
    throw new StartFailure(`PORT ${config.PORT} is in use: stop what listens there, or set PORT=…`);
}

/** DATABASE_URL, or a private PostgreSQL (installed with apt-get as root when missing), supervised. */
async function startDatabase(plan: StartPlan, life: Lifecycle): Promise<string> {
  const { config, dataDir, baseEnv } = plan;
  if (config.DATABASE_URL) {
    say(`database: DATABASE_URL (${new URL(config.DATABASE_URL).host})`);
    return config.DATABASE_URL;
  }
  let bin = findPostgresBin();
  if (!bin && process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    say('installing PostgreSQL (apt-get install postgresql)');
    const { code } = await runPrefixed({
      name: 'apt',
      command: 'apt-get',
      args: ['install', '-y', '-qq', '--no-install-recommends', 'postgresql'],
      cwd: REPO_ROOT,
      env: { ...baseEnv, DEBIAN_FRONTEND: 'noninteractive' },
    });
    if (code === 0) bin = findPostgresBin();
  }
  if (!bin)
    throw new StartFailure(
      'no PostgreSQL found (/usr/lib/postgresql/*/bin). Install it (sudo apt-get install postgresql) ' +
        'or set DATABASE_URL to an existing database',
    );
  const postgresBin = bin;
  let postgres = await startPrivatePostgres({ bin, dataDir, env: baseEnv, log: say });
  const { port } = postgres;
  life.supervisor.watch(
    {
      name: 'postgres',
      kind: 'store',
      async start(launched) {
        postgres = await startPrivatePostgres({
          bin: postgresBin,
          dataDir,
          env: baseEnv,
          log: say,
          port,
          launched,
        });
        return postgres.child;
      },
      stop: () => postgres.stop(),
    },
    postgres.child,
  );
  say(
    `database: private PostgreSQL on 127.0.0.1:${port} (data: ${path.join(dataDir, 'postgres')})`,
  );
  return postgres.url;
}

/** REDIS_URL, or a private redis-server with an append-only file, supervised. */
async function startRedis(plan: StartPlan, life: Lifecycle): Promise<string> {
  const { config, dataDir, baseEnv } = plan;
  if (config.REDIS_URL) {
    say(`redis: REDIS_URL (${new URL(config.REDIS_URL).host})`);
    return config.REDIS_URL;
  }
  let redis = await startPrivateRedis({ dataDir, env: baseEnv, log: say });
  const { port } = redis;
  life.supervisor.watch(
    {
      name: 'redis',
      kind: 'store',
      async start(launched) {
        redis = await startPrivateRedis({ dataDir, env: baseEnv, log: say, port, launched });
        return redis.child;
      },
      stop: () => redis.stop(),
    },
    redis.child,
  );
  say(
    `redis: private redis-server on 127.0.0.1:${port} (append-only file: ${path.join(dataDir, 'redis')})`,
  );
  return redis.url;
}

/**
 * Migrates, seeds, and writes the contest's benchmark definition if it has none: this start's
 * development size (PERFJUDGE_INPUT_SIZE), seed and pair budget (PERFJUDGE_RUNS). A definition
 * written earlier stands: where this start asks for another, it says so; the organizer console
 * changes it. Returns the main challenge's definition, the one every job carries.
 */
async function migrateAndSeed(plan: StartPlan, databaseUrl: string): Promise<JobBenchmark> {
  say('migrating the database');
  const applied = await applyMigrations({ connectionString: databaseUrl });
  say(
    applied.length
      ? `applied ${applied.length} migration(s): ${applied.join(', ')}`
      : 'database schema up to date',
  );
  const database = createDbClient(databaseUrl);
  try {
    const { config } = plan;
    const report = await seed(database, {
      organizer: plan.organizer,
      challenges: CHALLENGES,
      benchmark: ({ size, seedEnv }) => ({
        sizeBytes: developmentBenchmarkBytes(config, size) ?? size,
        seed: plan.seeds[seedEnv],
        ...(config.PERFJUDGE_RUNS !== undefined ? { maxPairs: config.PERFJUDGE_RUNS } : {}),
      }),
    });
    for (const c of report.challenges) {
      say(`challenge ${c.slug} v${c.version}: ${c.created ? 'registered' : 'already registered'}`);
      say(`${c.slug}: benchmark definition ${describeDefinition(c.benchmark)} (in the database)`);
      if (c.disagreements.length)
        warn(
          `${c.slug}: this start asks for another benchmark definition (${c.disagreements.join('; ')}): ` +
            "using the database's, on which every recorded score was timed; change it in the organizer " +
            'console (Settings), which rejudges everything or starts a new leaderboard',
        );
    }
    const main = report.challenges.find((c) => c.slug === plan.challenge.manifest.slug);
    if (!main) throw new ConfigError(`${plan.challenge.manifest.slug} was not seeded`);
    return main.benchmark;
  } finally {
    await database.$disconnect();
  }
}

/** The environments of the children: the platform side resolves each job's benchmark input. */
interface ServiceEnvironments {
  /** Seeds and the development size, for the web app and the scorer. */
  platform: NodeJS.ProcessEnv;
  web: NodeJS.ProcessEnv;
  /** Redis and the database: the scorer's base; runners get it without the database. */
  service: NodeJS.ProcessEnv;
}

function serviceEnvironments(
  plan: StartPlan,
  urls: { databaseUrl: string; redisUrl: string },
): ServiceEnvironments {
  const { config, baseEnv } = plan;
  // The benchmark definition is in the database (every job is made from it there); the seeds are
  // only what a web app or scorer compares it with at start.
  const platform = { ...plan.seeds };
  return {
    platform,
    web: {
      ...baseEnv,
      ...platform,
      NODE_ENV: 'production',
      DATABASE_URL: urls.databaseUrl,
      REDIS_URL: urls.redisUrl,
      PERFJUDGE_PUBLIC_URL: plan.publicUrl,
      PERFJUDGE_AUTH_SECRET: plan.authSecret,
      PERFJUDGE_NEXT_DIST_DIR: config.PERFJUDGE_NEXT_DIST_DIR,
      PORT: String(config.PORT),
    },
    service: { ...baseEnv, REDIS_URL: urls.redisUrl, DATABASE_URL: urls.databaseUrl },
  };
}

/** The production web build, unless it is newer than every source. */
async function buildWebApp(plan: StartPlan, life: Lifecycle, webEnv: NodeJS.ProcessEnv) {
  const distDir = plan.config.PERFJUDGE_NEXT_DIST_DIR;
  const buildId = path.join(REPO_ROOT, distDir, 'BUILD_ID');
  const built = existsSync(buildId) ? statSync(buildId).mtimeMs : 0;
  if (built > newestSource()) {
    say(`web app: production build in ${distDir}/ is up to date`);
    return;
  }
  say(`building the web app (next build into ${distDir}/) — a few minutes the first time`);
  const buildStarted = Date.now();
  const build = startChild({
    name: 'build',
    command: process.execPath,
    args: [NEXT_BIN, 'build'],
    cwd: REPO_ROOT,
    env: { ...webEnv, NEXT_TELEMETRY_DISABLED: '1' },
  });
  life.pending.add(build);
  // Turbopack prints nothing for minutes on a small machine: say it is still at work.
  const ticker = setInterval(
    () => say(`still building the web app (${((Date.now() - buildStarted) / 1000).toFixed(0)} s)`),
    30_000,
  );
  const code = await build.exited;
  clearInterval(ticker);
  life.pending.delete(build);
  if (life.stopping) return;
  if (code !== 0) throw new StartFailure(`next build failed (exit ${code}); see [build] above`);
  say(`web app built in ${((Date.now() - buildStarted) / 1000).toFixed(0)} s`);
}

/** Publishes the supervisor's view of its children for /api/health and the organizer console. */
function startStatusPublisher(life: Lifecycle, redisUrl: string): void {
  life.statusRedis = createHttpConnection({
    url: redisUrl,
    connectionName: 'perfjudge-npm-start',
    onError: () => undefined, // Redis restarting is reported by the supervisor itself
  });
  life.publisher = startSupervisorPublisher({
    redis: life.statusRedis,
    prefix: env().PERFJUDGE_QUEUE_PREFIX,
    id: `${os.hostname()}-${process.pid}`,
    report: () => ({
      supervisor: `npm start on ${os.hostname()} (pid ${process.pid})`,
      services: life.supervisor.statuses(),
    }),
  });
}

/** A perfjudge process that the supervisor starts again whenever it dies. */
function supervisedService(
  life: Lifecycle,
  name: string,
  kind: ServiceStatus['kind'],
  args: string[],
  childEnv: NodeJS.ProcessEnv,
  ready: (child: Child) => Promise<unknown>,
): Supervised {
  return {
    name,
    kind,
    async start(launched) {
      const child = startChild({
        name,
        command: process.execPath,
        args,
        cwd: REPO_ROOT,
        env: childEnv,
      });
      launched(child);
      life.pending.add(child);
      try {
        await ready(child);
        return child;
      } catch (error) {
        await child.stop(5_000);
        throw error;
      } finally {
        life.pending.delete(child);
      }
    },
  };
}

/**
 * The scorer, the web server and one runner per planned target, each started once here and
 * watched from then on. Resolves with what each runner serves (a runner that refuses this host is
 * reported, and the rest of the platform runs), or when a signal stops everything meanwhile.
 */
async function startServices(
  plan: StartPlan,
  life: Lifecycle,
  envs: ServiceEnvironments,
  runnerPlans: RunnerPlan[],
  notServed: string[],
): Promise<string[]> {
  const { config } = plan;
  const grace = String(Math.max(1, config.PERFJUDGE_STOP_GRACE_SECONDS - 5));
  const scorer = supervisedService(
    life,
    'scorer',
    'scorer',
    [BIN, 'scorer', '--grace-seconds', grace],
    { ...envs.service, ...envs.platform },
    (child) => child.waitForLine(/scorer ready/, 120_000),
  );
  // Runners never get database credentials (the security model); they need Redis only: the
  // benchmark input, seed included, comes in each job. The seed is still set as the fallback
  // for jobs of a platform that knows none.
  const { DATABASE_URL: _noDb, ...runnerEnv } = envs.service;
  const localUrl = `http://127.0.0.1:${config.PORT}`;
  const web = supervisedService(
    life,
    'web',
    'web',
    [WEB_SERVER, '--port', String(config.PORT)],
    envs.web,
    (child) => waitFor('the web server', () => healthy(localUrl), 180_000, child),
  );
  const first = async (spec: Supervised): Promise<void> => {
    const child = await spec.start(() => undefined);
    life.supervisor.watch(spec, child);
  };
  const served: string[] = [];
  const waits: Promise<unknown>[] = [first(scorer), first(web)];
  for (const runnerPlan of runnerPlans) {
    const { target, args } = runnerPlan;
    say(`starting runner ${target}: perfjudge runner --target ${target} ${args.join(' ')}`);
    const runner = supervisedService(
      life,
      `runner ${target}`,
      'runner',
      [BIN, 'runner', '--target', target, ...args],
      { ...runnerEnv, ...plan.seeds },
      (child) => child.waitForLine(/serving /, 600_000),
    );
    waits.push(
      first(runner).then(
        () => served.push(runnerPlan.note),
        (error: unknown) => {
          const reason =
            error instanceof ChildExitedError
              ? (error.lines.filter((l) => l.trim()).at(-1) ?? `exit ${error.code}`)
              : (error as Error).message;
          notServed.push(`${target}: not served (${reason})`);
        },
      ),
    );
  }
  await Promise.race([Promise.all(waits), life.stopped]);
  return served;
}

function printReady(plan: StartPlan, served: string[], notServed: string[]): void {
  const lines = [
    '',
    `perfjudge is running: ${plan.publicUrl} (ready ${elapsed()} after npm start began)`,
    `  organizer: ${plan.organizer.email}`,
    `  password:  ${plan.organizer.password}   (kept in ${path.join(plan.dataDir, 'secrets.json')})`,
    ...served.map((n) => `  ${n}`),
    ...notServed.map((n) => `  ${n}`),
    `  health:    ${plan.publicUrl}/api/health`,
    '  A child that dies is restarted; Ctrl-C stops everything.',
    '',
  ];
  process.stdout.write(lines.map((l) => `[start] ${l}`).join('\n') + '\n');
}

export async function main(): Promise<number> {
  let config: StartEnv;
  let dataDir: string;
  try {
    config = startEnv();
    dataDir = env().PERFJUDGE_DATA_DIR;
  } catch (error) {
    warn(error instanceof Error ? error.message : String(error));
    return 1;
  }
  beganAt = config.PERFJUDGE_START_BEGAN_AT ?? Date.now();
  const life = createLifecycle(config.PERFJUDGE_STOP_GRACE_SECONDS * 1000);
  try {
    const plan = await loadPlan(config, dataDir);
    await checkHost(plan);
    const databaseUrl = await startDatabase(plan, life);
    const redisUrl = await startRedis(plan, life);
    const definition = await migrateAndSeed(plan, databaseUrl);
    // The runners would generate the inputs on the first judging; now, with progress.
    const { challenge } = plan;
    const { plans: runnerPlans, notServed } = await planRunners(
      config,
      challenge,
      definition,
      dataDir,
    );
    if (runnerPlans.length)
      await pregenerateInputs(
        challenge,
        {
          seed: definition.seed ?? plan.seeds[challenge.manifest.inputs.benchmark.seedEnv]!,
          sizeBytes: definition.sizeBytes,
          rareSeparators: challenge.manifest.inputs.rareSeparators,
        },
        dataDir,
      );
    const envs = serviceEnvironments(plan, { databaseUrl, redisUrl });
    await buildWebApp(plan, life, envs.web);
    if (life.stopping) return await life.stopping;
    startStatusPublisher(life, redisUrl);
    const served = await startServices(plan, life, envs, runnerPlans, notServed);
    if (life.stopping) return await life.stopping;
    printReady(plan, served, notServed);
    // Until a signal: deaths are the supervisor's business from here on.
    return await life.stopped;
  } catch (error) {
    if (life.stopping) return await life.stopping;
    warn(error instanceof Error ? error.message : String(error));
    return life.stopAll(1);
  }
}

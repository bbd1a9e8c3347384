// `npm start` after the bootstrap (scripts/start.mjs): the whole platform on this machine. Private
// PostgreSQL and Redis under .data/ unless DATABASE_URL / REDIS_URL are set, migrations and the
// seed, pre-generated inputs, the production web build, then the web server, the scorer and one
// runner per target this host can serve. Ctrl-C (SIGINT) or SIGTERM stops everything in order.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { chmod, mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Redis } from 'ioredis';
import {
  formatByteSize,
  parseByteSize,
  TARGET_IDS,
  type ServiceStatus,
  type TargetId,
} from '../contracts';
import { listChallenges, loadChallenge, type Challenge } from '../lib/challenge/load-manifest';
import { challengeSecret, ConfigError, env, REPO_ROOT } from '../lib/config/env';
import { childEnvironment, startEnv, type StartEnv } from '../lib/config/start-env';
import { createDbClient } from '../lib/db/client';
import { applyMigrations } from '../lib/db/migrate';
import { seed } from '../prisma/seed';
import { cpuVendor } from '../runner/host/fingerprint';
import { ensureInput, referenceSha256, type InputSpec } from '../runner/judge/inputs';
import { DEFAULT_SANDBOX_IDENTITY } from '../runner/sandbox/bubblewrap-sandbox';
import { assertReachable } from '../runner/sandbox/work-dir';
import { createHttpConnection } from '../lib/queue/connection';
import { startSupervisorPublisher, type SupervisorPublisher } from '../lib/queue/service-status';
import { ChildExitedError, runPrefixed, startChild, type Child } from './lib-start-process';
import { Supervisor, type Supervised } from './lib-start-supervise';
import {
  findPostgresBin,
  portAnswers,
  startPrivatePostgres,
  startPrivateRedis,
  waitFor,
} from './lib-start-services';

const exec = promisify(execFile);
const CHALLENGES = ['wordcount'];
const BIN = path.join(REPO_ROOT, 'bin', 'perfjudge.mjs');
const NEXT_BIN = path.join(REPO_ROOT, 'node_modules', 'next', 'dist', 'bin', 'next');
/** `next start` with client addresses from the connection (lib/web/client-address.ts). */
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
    'runner/service/heartbeat.ts',
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
  manifestSize: number,
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
  const knobs: string[] = [];
  const reasons: string[] = [];
  // The benchmark input is the contest's, carried by every job: the web app and the scorer resolve
  // it with PERFJUDGE_BENCHMARK_SIZE (from PERFJUDGE_INPUT_SIZE), and a smaller one than the
  // manifest's labels the results itself; the runners get no size of their own.
  const devBytes = developmentBenchmarkBytes(config, manifestSize);
  if (devBytes !== undefined)
    reasons.push(
      `contest benchmark input ${formatByteSize(devBytes)} instead of the manifest's ${formatByteSize(manifestSize)}; ` +
        'PERFJUDGE_INPUT_SIZE=manifest for official judging',
    );
  if (config.PERFJUDGE_RUNS !== undefined) {
    knobs.push('--runs', String(config.PERFJUDGE_RUNS));
    reasons.push(`at most ${config.PERFJUDGE_RUNS} timed pairs (PERFJUDGE_RUNS)`);
  }
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
  const plans: RunnerPlan[] = [];
  const notServed: string[] = [];

  if (wanted.includes('linux-intel')) {
    const vendor = await cpuVendor();
    const why = [...reasons];
    if (vendor !== 'GenuineIntel')
      why.unshift(`this CPU is ${vendor}, not GenuineIntel: the runner refuses it otherwise`);
    // The runner's own dev mode: another CPU, or fewer pairs (PERFJUDGE_RUNS).
    const runnerDev = vendor !== 'GenuineIntel' || knobs.length > 0;
    if (process.platform !== 'linux') notServed.push(`linux-intel: not served (this is not Linux)`);
    else
      plans.push({
        target: 'linux-intel',
        args: [...(runnerDev ? ['--dev-mode', ...knobs] : []), ...grace],
        note: why.length
          ? `linux-intel: development mode, results labelled (${why.join('; ')})`
          : 'linux-intel: official judging on this Intel host',
      });
  }
  if (wanted.includes('windows-amd')) {
    const wine = await exec('wine', ['--version'], { timeout: 30_000 }).then(
      ({ stdout }) => stdout.trim(),
      () => null,
    );
    if (!wine)
      notServed.push(
        'windows-amd: not served (Wine is not installed: apt-get install wine wine64 mingw-w64, then start again)',
      );
    else if (!existsSync(path.join(REPO_ROOT, 'runner', 'windows')))
      notServed.push(
        'windows-amd: not served (this checkout has no Windows adapter, runner/windows/)',
      );
    else
      plans.push({
        target: 'windows-amd',
        // Emulated under Wine is never the target's hardware: always development mode.
        args: ['--dev-mode', ...knobs, ...grace],
        note: `windows-amd: emulated under ${wine}, development mode, results labelled${
          reasons.length ? ` (${reasons.join('; ')})` : ''
        }`,
      });
  }
  return { plans, notServed };
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

  // Children not supervised yet (the web build; services while they start for the first time),
  // and the supervisor of everything that came up: a child that dies is restarted with backoff
  // while the rest keeps serving. The platform stops only when asked, then in reverse order of
  // need: web and runners (nothing new comes in, judgings in hand finish or are handed back), then
  // the scorer, then the stores.
  const pending = new Set<Child>();
  let publisher: SupervisorPublisher | null = null;
  let statusRedis: Redis | null = null;
  const supervisor = new Supervisor({ log: say, onChange: () => publisher?.publish() });
  let stopping: Promise<number> | null = null;
  const graceMs = config.PERFJUDGE_STOP_GRACE_SECONDS * 1000;
  const stopAll = (code: number): Promise<number> => {
    stopping ??= (async () => {
      say('stopping…');
      supervisor.stopRestarting();
      await Promise.all([...pending].map((c) => c.stop(graceMs)));
      await supervisor.stop((_, kind) => kind === 'web' || kind === 'runner', graceMs);
      await supervisor.stop((_, kind) => kind === 'scorer', graceMs);
      await publisher?.stop();
      statusRedis?.disconnect();
      for (const name of ['redis', 'postgres']) {
        if (!supervisor.child(name)) continue;
        say(`stopping ${name}`);
        await supervisor
          .stop((n) => n === name, graceMs)
          .catch((error: Error) => warn(`${name}: ${error.message}`));
      }
      say(`stopped (${elapsed()} after npm start began)`);
      return code;
    })();
    return stopping;
  };
  const stopped = new Promise<number>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) return; // a second Ctrl-C: the grace periods still apply
      say(`${signal} received`);
      void stopAll(0).then(resolve);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });

  const fail = async (message: string): Promise<number> => {
    warn(message);
    return stopAll(1);
  };

  try {
    await mkdir(dataDir, { recursive: true });
    const challenge = await loadChallenge(CHALLENGES[0]!);
    // Every challenge on disk: a runner outside development mode serves them all and needs each seed.
    const seedNames = [
      ...new Set((await listChallenges()).map((c) => c.manifest.inputs.benchmark.seedEnv)),
    ];
    const secrets = await loadSecrets(dataDir, seedNames);
    const seeds = Object.fromEntries(
      seedNames.map((name) => [name, challengeSecret(name) ?? secrets.seeds[name]!]),
    );
    const organizer = {
      email: env().PERFJUDGE_ORGANIZER_EMAIL ?? secrets.organizer.email,
      password: env().PERFJUDGE_ORGANIZER_PASSWORD ?? secrets.organizer.password,
    };
    const authSecret = env().PERFJUDGE_AUTH_SECRET ?? secrets.authSecret;
    const publicUrl = config.PERFJUDGE_PUBLIC_URL ?? `http://localhost:${config.PORT}`;
    const baseEnv = childEnvironment({});

    // As root the sandbox runs untrusted code as uid 65534, which must be able to reach the
    // challenge's files: a checkout under /root (mode 700) or a private temporary folder would make
    // every judging a judge error. Said now, in a second, rather than after the build.
    if (process.getuid?.() === 0 && config.PERFJUDGE_TARGETS !== 'none') {
      try {
        for (const dir of [challenge.harnessDir, challenge.templateDir, challenge.testsDir])
          await assertReachable(dir, DEFAULT_SANDBOX_IDENTITY);
      } catch (error) {
        return await fail(
          `${(error as Error).message}.\n  The runners run untrusted code as uid 65534, which only ` +
            'needs to traverse the folders above the checkout: clone it under /opt or /srv, or ' +
            'allow traversal of the folder named (chmod o+x gives no right to list it).',
        );
      }
    }

    if (await portAnswers(config.PORT))
      return await fail(`PORT ${config.PORT} is in use: stop what listens there, or set PORT=…`);

    // 1. PostgreSQL.
    let databaseUrl = config.DATABASE_URL;
    if (databaseUrl) say(`database: DATABASE_URL (${new URL(databaseUrl).host})`);
    else {
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
        return await fail(
          'no PostgreSQL found (/usr/lib/postgresql/*/bin). Install it (sudo apt-get install postgresql) ' +
            'or set DATABASE_URL to an existing database',
        );
      const postgresBin = bin;
      let postgres = await startPrivatePostgres({ bin, dataDir, env: baseEnv, log: say });
      const { port } = postgres;
      supervisor.watch(
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
      databaseUrl = postgres.url;
      say(
        `database: private PostgreSQL on 127.0.0.1:${port} (data: ${path.join(dataDir, 'postgres')})`,
      );
    }

    // 2. Redis.
    let redisUrl = config.REDIS_URL;
    if (redisUrl) say(`redis: REDIS_URL (${new URL(redisUrl).host})`);
    else {
      let redis = await startPrivateRedis({ dataDir, env: baseEnv, log: say });
      const { port } = redis;
      supervisor.watch(
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
      redisUrl = redis.url;
      say(
        `redis: private redis-server on 127.0.0.1:${port} (append-only file: ${path.join(dataDir, 'redis')})`,
      );
    }

    // 3. Migrations and the seed.
    say('migrating the database');
    const applied = await applyMigrations({ connectionString: databaseUrl });
    say(
      applied.length
        ? `applied ${applied.length} migration(s): ${applied.join(', ')}`
        : 'database schema up to date',
    );
    const database = createDbClient(databaseUrl);
    try {
      const report = await seed(database, { organizer, challenges: CHALLENGES });
      for (const c of report.challenges)
        say(
          `challenge ${c.slug} v${c.version}: ${c.created ? 'registered' : 'already registered'}`,
        );
    } finally {
      await database.$disconnect();
    }

    // 4. Inputs (the runners would generate them on the first judging; now, with progress).
    const manifestSize = challenge.manifest.inputs.benchmark.size;
    const { plans, notServed } = await planRunners(config, manifestSize, dataDir);
    const devBytes = developmentBenchmarkBytes(config, manifestSize);
    if (plans.length)
      await pregenerateInputs(
        challenge,
        {
          seed: seeds[challenge.manifest.inputs.benchmark.seedEnv]!,
          sizeBytes: devBytes ?? manifestSize,
          rareSeparators: challenge.manifest.inputs.rareSeparators,
        },
        dataDir,
      );

    // 5. The production web build, unless it is newer than every source.
    const distDir = config.PERFJUDGE_NEXT_DIST_DIR;
    const buildId = path.join(REPO_ROOT, distDir, 'BUILD_ID');
    // The web app and the scorer are the platform side that resolves each job's benchmark input
    // (lib/challenge/benchmark-definition.ts): they get the seed and the development size.
    const platformEnv = {
      ...seeds,
      ...(devBytes !== undefined ? { PERFJUDGE_BENCHMARK_SIZE: formatByteSize(devBytes) } : {}),
    };
    const webEnv = {
      ...baseEnv,
      ...platformEnv,
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      PERFJUDGE_PUBLIC_URL: publicUrl,
      PERFJUDGE_AUTH_SECRET: authSecret,
      PERFJUDGE_NEXT_DIST_DIR: distDir,
      PORT: String(config.PORT),
    };
    const built = existsSync(buildId) ? statSync(buildId).mtimeMs : 0;
    if (built > newestSource()) say(`web app: production build in ${distDir}/ is up to date`);
    else {
      say(`building the web app (next build into ${distDir}/) — a few minutes the first time`);
      const buildStarted = Date.now();
      const build = startChild({
        name: 'build',
        command: process.execPath,
        args: [NEXT_BIN, 'build'],
        cwd: REPO_ROOT,
        env: { ...webEnv, NEXT_TELEMETRY_DISABLED: '1' },
      });
      pending.add(build);
      // Turbopack prints nothing for minutes on a small machine: say it is still at work.
      const ticker = setInterval(
        () =>
          say(`still building the web app (${((Date.now() - buildStarted) / 1000).toFixed(0)} s)`),
        30_000,
      );
      const code = await build.exited;
      clearInterval(ticker);
      pending.delete(build);
      if (stopping) return await stopping;
      if (code !== 0) return await fail(`next build failed (exit ${code}); see [build] above`);
      say(`web app built in ${((Date.now() - buildStarted) / 1000).toFixed(0)} s`);
    }
    if (stopping) return await stopping;

    // 6. The services, each a supervised child: started once here, again whenever it dies.
    statusRedis = createHttpConnection({
      url: redisUrl,
      connectionName: 'perfjudge-npm-start',
      onError: () => undefined, // Redis restarting is reported by the supervisor itself
    });
    publisher = startSupervisorPublisher({
      redis: statusRedis,
      prefix: env().PERFJUDGE_QUEUE_PREFIX,
      id: `${os.hostname()}-${process.pid}`,
      report: () => ({
        supervisor: `npm start on ${os.hostname()} (pid ${process.pid})`,
        services: supervisor.statuses(),
      }),
    });
    const serviceEnv = { ...baseEnv, REDIS_URL: redisUrl, DATABASE_URL: databaseUrl };
    const localUrl = `http://127.0.0.1:${config.PORT}`;
    const service = (
      name: string,
      kind: ServiceStatus['kind'],
      args: string[],
      childEnv: NodeJS.ProcessEnv,
      ready: (child: Child) => Promise<unknown>,
    ): Supervised => ({
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
        pending.add(child);
        try {
          await ready(child);
          return child;
        } catch (error) {
          await child.stop(5_000);
          throw error;
        } finally {
          pending.delete(child);
        }
      },
    });
    const scorer = service(
      'scorer',
      'scorer',
      [
        BIN,
        'scorer',
        '--grace-seconds',
        String(Math.max(1, config.PERFJUDGE_STOP_GRACE_SECONDS - 5)),
      ],
      { ...serviceEnv, ...platformEnv },
      (child) => child.waitForLine(/scorer ready/, 120_000),
    );
    // Runners never get database credentials (the security model); they need Redis only: the
    // benchmark input, seed included, comes in each job. The seed is still set as the fallback
    // for jobs of a platform that knows none.
    const { DATABASE_URL: _noDb, ...runnerBase } = serviceEnv;
    const runners = plans.map((plan) => {
      say(
        `starting runner ${plan.target}: perfjudge runner --target ${plan.target} ${plan.args.join(' ')}`,
      );
      return {
        plan,
        spec: service(
          `runner ${plan.target}`,
          'runner',
          [BIN, 'runner', '--target', plan.target, ...plan.args],
          { ...runnerBase, ...seeds },
          (child) => child.waitForLine(/serving /, 600_000),
        ),
      };
    });
    const web = service(
      'web',
      'web',
      [WEB_SERVER, '--port', String(config.PORT)],
      webEnv,
      (child) => waitFor('the web server', () => healthy(localUrl), 180_000, child),
    );

    const served: string[] = [];
    const first = async (spec: Supervised): Promise<void> => {
      const child = await spec.start(() => undefined);
      supervisor.watch(spec, child);
    };
    const waits: Promise<unknown>[] = [first(scorer), first(web)];
    for (const { plan, spec } of runners)
      waits.push(
        first(spec).then(
          () => served.push(plan.note),
          (error: unknown) => {
            // A runner that refuses this host is reported, and the rest of the platform runs.
            const reason =
              error instanceof ChildExitedError
                ? (error.lines.filter((l) => l.trim()).at(-1) ?? `exit ${error.code}`)
                : (error as Error).message;
            notServed.push(`${plan.target}: not served (${reason})`);
          },
        ),
      );
    await Promise.race([Promise.all(waits), stopped]);
    if (stopping) return await stopping;

    const lines = [
      '',
      `perfjudge is running: ${publicUrl} (ready ${elapsed()} after npm start began)`,
      `  organizer: ${organizer.email}`,
      `  password:  ${organizer.password}   (kept in ${path.join(dataDir, 'secrets.json')})`,
      ...served.map((n) => `  ${n}`),
      ...notServed.map((n) => `  ${n}`),
      `  health:    ${publicUrl}/api/health`,
      '  A child that dies is restarted; Ctrl-C stops everything.',
      '',
    ];
    process.stdout.write(lines.map((l) => `[start] ${l}`).join('\n') + '\n');

    // 7. Until a signal: deaths are the supervisor's business from here on.
    return await stopped;
  } catch (error) {
    if (stopping) return await stopping;
    return await fail(error instanceof Error ? error.message : String(error));
  }
}

// The private PostgreSQL and Redis `npm start` runs when DATABASE_URL / REDIS_URL are not set: the
// system's binaries, data under .data/, on free ports of 127.0.0.1 only, stopped with the platform.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { startChild, type Child } from './process';
import { freePort } from '../../lib/core/net/free-port';

const exec = promisify(execFile);

/** Whether something accepts connections on 127.0.0.1:port (a port in use, or a server up). */
export function portAnswers(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  child?: Child,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && !child.running())
      throw new Error(`${what} exited while starting:\n  ${child.tail().join('\n  ')}`);
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what} did not come up within ${Math.round(timeoutMs / 1000)} s`);
}

/**
 * The port a private store listens on: the one of the last start when it is still free (kept in
 * .data/<store>.port), else a free one; on a restart exactly the one it had, as clients hold it.
 */
async function choosePort(portFile: string, exact: number | undefined): Promise<number> {
  if (exact !== undefined) {
    if (await portAnswers(exact)) throw new Error(`port ${exact} is taken by another process`);
    return exact;
  }
  const previous = Number(await readFile(portFile, 'utf8').catch(() => '')) || undefined;
  const port = await freePort(previous);
  await writeFile(portFile, `${port}\n`);
  return port;
}

// ---- PostgreSQL ---------------------------------------------------------------------------------

/** The newest system PostgreSQL's bin folder (Debian keeps them in /usr/lib/postgresql/<v>/bin). */
export function findPostgresBin(): string | null {
  const base = '/usr/lib/postgresql';
  if (existsSync(base)) {
    const versions = readdirSync(base)
      .filter((v) => existsSync(path.join(base, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return path.join(base, versions[0], 'bin');
  }
  for (const dir of ['/usr/bin', '/usr/local/bin', '/usr/local/pgsql/bin'])
    if (existsSync(path.join(dir, 'initdb')) && existsSync(path.join(dir, 'pg_ctl'))) return dir;
  return null;
}

/**
 * PostgreSQL refuses to run as root. As root we run it in a private user namespace where root is
 * mapped to an ordinary uid: the files stay root's (no chown, and no need for a postgres user to
 * reach a folder under /root), while the server does not run with root's identity inside.
 */
function asNonRoot(command: string, args: string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [command, args];
  return ['unshare', ['--user', '--map-user=1000', '--map-group=1000', '--', command, ...args]];
}

export interface PrivatePostgres {
  url: string;
  port: number;
  /** The server process (npm start supervises it). */
  child: Child;
  stop(): Promise<void>;
}

interface PostgresOptions {
  bin: string;
  dataDir: string;
  /** The children's environment (PATH, to find the tools). */
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  /** A restart: this port exactly (every client has it in its URL), or fail. */
  port?: number;
  /** Told the server process as soon as it exists. */
  launched?: (child: Child) => void;
  /**
   * A throwaway cluster (the chaos drill's): nothing is flushed to disk. A crash of the server
   * alone still recovers; only the machine's crash could lose data, and there is none to keep.
   */
  throwaway?: boolean;
}

export async function startPrivatePostgres(options: PostgresOptions): Promise<PrivatePostgres> {
  const { bin, log } = options;
  const pgData = path.join(options.dataDir, 'postgres');
  const pgCtl = path.join(bin, 'pg_ctl');

  await createCluster(options, pgData);
  await stopLeftoverServer(pgCtl, pgData, log);
  const port = await choosePort(path.join(options.dataDir, 'postgres.port'), options.port);
  const child = await launchPostgres(options, pgData, port);
  await createDatabase(`postgresql://postgres@127.0.0.1:${port}/postgres`);

  return {
    url: `postgresql://postgres@127.0.0.1:${port}/perfjudge`,
    port,
    child,
    async stop() {
      if (!child.running()) return;
      const [c, a] = asNonRoot(pgCtl, ['-D', pgData, 'stop', '-m', 'fast', '-w', '-t', '30']);
      await exec(c, a).catch((error: Error) => log(`pg_ctl stop: ${error.message}`));
      await child.stop(10_000, 'SIGINT'); // SIGINT is PostgreSQL's fast shutdown, if pg_ctl failed
    },
  };
}

/** initdb, when the data folder holds no cluster yet. */
async function createCluster(options: PostgresOptions, pgData: string): Promise<void> {
  if (existsSync(path.join(pgData, 'PG_VERSION'))) return;
  options.log(`creating a PostgreSQL cluster in ${pgData} (${options.bin})`);
  await mkdir(pgData, { recursive: true, mode: 0o700 });
  const [cmd, args] = asNonRoot(path.join(options.bin, 'initdb'), [
    '-D',
    pgData,
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
    '--locale=C',
    ...(options.throwaway ? ['--no-sync'] : []),
  ]);
  try {
    await exec(cmd, args);
  } catch (error) {
    throw new Error(`initdb failed: ${(error as { stderr?: string }).stderr ?? error}`);
  }
}

/** A previous start that was killed (-9) leaves its server running: stop it, then start ours. */
async function stopLeftoverServer(
  pgCtl: string,
  pgData: string,
  log: (line: string) => void,
): Promise<void> {
  if (!existsSync(path.join(pgData, 'postmaster.pid'))) return;
  const [cmd, args] = asNonRoot(pgCtl, ['-D', pgData, 'status']);
  const running = await exec(cmd, args).then(
    () => true,
    () => false,
  );
  if (!running) return;
  log('a PostgreSQL from an earlier start is still running on this data: stopping it');
  const [c, a] = asNonRoot(pgCtl, ['-D', pgData, 'stop', '-m', 'fast', '-w']);
  await exec(c, a).catch(() => {});
}

/** The server process on `port`, once it accepts connections. */
async function launchPostgres(
  options: PostgresOptions,
  pgData: string,
  port: number,
): Promise<Child> {
  const logFile = path.join(options.dataDir, 'postgres.log');
  // TCP on 127.0.0.1 only, no Unix socket (its path would have to fit 107 bytes), trust auth:
  // only local processes reach it, and it holds nothing but this platform's data.
  const [cmd, args] = asNonRoot(path.join(options.bin, 'postgres'), [
    '-D',
    pgData,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'unix_socket_directories=',
    '-c',
    'max_connections=100',
    ...(options.throwaway ? ['-c', 'fsync=off', '-c', 'full_page_writes=off'] : []),
  ]);
  const child = startChild({
    name: 'postgres',
    command: cmd,
    args,
    cwd: options.dataDir,
    env: { PATH: options.env.PATH ?? '/usr/bin:/bin', LANG: 'C' },
    echo: false,
    logFile,
  });
  options.launched?.(child);
  const adminUrl = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  const canConnect = async () => {
    const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 1000 });
    try {
      await client.connect();
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => {});
    }
  };
  await waitFor(`PostgreSQL (log: ${logFile})`, canConnect, 60_000, child);
  return child;
}

/** The platform's database, when the cluster does not have it yet. */
async function createDatabase(adminUrl: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const { rowCount } = await admin.query(`SELECT 1 FROM pg_database WHERE datname = 'perfjudge'`);
    if (!rowCount) await admin.query('CREATE DATABASE perfjudge');
  } finally {
    await admin.end();
  }
}

// ---- Redis --------------------------------------------------------------------------------------

export interface PrivateRedis {
  url: string;
  port: number;
  /** The server process (npm start supervises it). */
  child: Child;
  stop(): Promise<void>;
}

export async function startPrivateRedis(options: {
  dataDir: string;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  /** A restart: this port exactly (every client has it in its URL), or fail. */
  port?: number;
  /** Told the server process as soon as it exists. */
  launched?: (child: Child) => void;
}): Promise<PrivateRedis> {
  const dir = path.join(options.dataDir, 'redis');
  await mkdir(dir, { recursive: true });
  const port = await choosePort(path.join(options.dataDir, 'redis.port'), options.port);
  // An append-only file (fsynced every second) under .data/redis: a Redis that dies or is
  // restarted comes back with its queued jobs and finished-but-unscored judgings. What is lost
  // anyway (a FLUSHALL, a deleted folder) the scorer's reconciler re-queues from PostgreSQL.
  const child = startChild({
    name: 'redis',
    command: 'redis-server',
    args: [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'yes',
      '--appendfsync',
      'everysec',
      '--daemonize',
      'no',
    ],
    cwd: dir,
    env: { PATH: options.env.PATH ?? '/usr/bin:/bin' },
    echo: false,
    logFile: path.join(options.dataDir, 'redis.log'),
  });
  options.launched?.(child);
  await waitFor('Redis', () => portAnswers(port), 20_000, child);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    child,
    async stop() {
      if (!child.running()) return;
      // SHUTDOWN flushes the append-only file (no RDB snapshot is configured to be written).
      await exec('redis-cli', ['-p', String(port), 'SHUTDOWN'], { timeout: 10_000 }).catch(
        () => {},
      );
      await child.stop(5_000);
    },
  };
}

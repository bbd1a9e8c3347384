// The one place that reads the environment. Everything is validated here at start-up; a bad value
// stops the process with a message naming the variable. Nothing else reads process.env.
import { AppError } from '../../../contracts';
import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { parseByteSize } from '../../../contracts/size';
import { describeIssues, firstIssue } from '../../../contracts/zod-issues';

/**
 * The checkout's root: the nearest folder above this module holding challenges/ and package.json.
 * Searched rather than fixed at '../../..' because the web app runs this module bundled from
 * .next/server/…; the working directory is the last resort.
 */
function findRepoRoot(): string {
  let dir: string;
  try {
    dir = path.dirname(fileURLToPath(import.meta.url));
  } catch {
    return process.cwd();
  }
  for (;;) {
    if (existsSync(path.join(dir, 'challenges')) && existsSync(path.join(dir, 'package.json')))
      return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
}

export const REPO_ROOT = findRepoRoot();

/** `1.2.3.4`, `::1`, `10.0.0.0/8` or `fd00::/64`: what a trusted-proxy entry may be. */
export function isAddressOrCidr(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/** A BullMQ key prefix (the environment's, or a runner's --prefix). */
export const queuePrefixSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.{}-]{1,64}$/, 'letters, digits and _ . { } - only');

const envSchema = z.object({
  /** Where builds, generated inputs and cached outputs live. */
  PERFJUDGE_DATA_DIR: z.string().min(1).default(path.join(REPO_ROOT, '.data')),
  /** The CPU timed runs are pinned to (overrides the manifest). */
  PERFJUDGE_CPU: z.coerce.number().int().nonnegative().optional(),
  /** Which sandbox runs untrusted code. */
  PERFJUDGE_SANDBOX: z.enum(['bubblewrap', 'docker']).default('bubblewrap'),
  /** Windows hosts: AMD uProf's AMDuProfCLI.exe (default: on PATH, else the installer's folder). */
  PERFJUDGE_UPROF_CLI: z.string().min(1).optional(),
  /** PATH, read only to find uProf's CLI on Windows hosts. */
  PATH: z.string().optional(),
  CI: z.string().optional(),
  /** PostgreSQL, e.g. postgresql://postgres@127.0.0.1:5432/perfjudge (`?schema=` is honoured). */
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  /** The organizer account the seed creates (prisma/seed.ts). */
  PERFJUDGE_ORGANIZER_EMAIL: z.email().optional(),
  PERFJUDGE_ORGANIZER_PASSWORD: z.string().min(12, 'must be at least 12 characters').optional(),
  /** Redis for BullMQ (work in flight only), e.g. redis://127.0.0.1:6379/0. */
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).default('redis://127.0.0.1:6379'),
  /** BullMQ key prefix: every queue, job and runner heartbeat key starts with `<prefix>:`. */
  PERFJUDGE_QUEUE_PREFIX: queuePrefixSchema.default('perfjudge'),
  /** Where browsers reach the web app (sign-in cookies and links are made for it). */
  PERFJUDGE_PUBLIC_URL: z.url({ protocol: /^https?$/ }).default('http://localhost:3000'),
  /** Signs session cookies; at least 32 characters. Unset: a random one per process (sessions end on restart). */
  PERFJUDGE_AUTH_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /**
   * A benchmark size, e.g. 32MiB, that the seed writes into a contest's definition when it has
   * none (smaller than the manifest's: development, results labelled). The definition then lives
   * in the database: a web app or scorer whose value differs says so at start and uses the
   * database's (lib/core/challenge/benchmark-definition.ts). Runners never read it.
   */
  PERFJUDGE_BENCHMARK_SIZE: z
    .string()
    .refine((v) => (parseByteSize(v) ?? 0) > 0, 'a size like 32MiB')
    .transform((v) => parseByteSize(v)!)
    .optional(),
  /**
   * The reverse proxies in front of the web app whose X-Forwarded-For / X-Real-IP it believes, as a
   * comma-separated list of addresses or CIDR ranges (`10.0.0.5,fd00::/64`). Unset: none, and a
   * client's address is the connection's peer (lib/core/net/client-address.ts).
   */
  PERFJUDGE_TRUSTED_PROXIES: z
    .string()
    .default('')
    .transform((value, ctx) => {
      const entries = value
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean);
      for (const entry of entries)
        if (!isAddressOrCidr(entry))
          ctx.addIssue({ code: 'custom', message: `${entry} is not an IP address or CIDR range` });
      return entries;
    }),
  /**
   * Sign-in attempts one client address may make per minute, at any accounts (a contest hall behind
   * one address may need more; each account's own back-off applies whatever this is).
   */
  PERFJUDGE_SIGN_INS_PER_ADDRESS_PER_MINUTE: z.coerce.number().int().positive().default(5),
  /** Accounts one client address may create per day (sign-up); 0 closes sign-up. */
  PERFJUDGE_SIGNUPS_PER_ADDRESS_PER_DAY: z.coerce.number().int().nonnegative().default(3),
  /** Accounts the whole platform accepts per hour, from all addresses together. */
  PERFJUDGE_SIGNUPS_PER_HOUR: z.coerce.number().int().nonnegative().default(60),
  /**
   * `required`: an organizer has the organizer role only once two-factor sign-in (an authenticator
   * app) is on; until then the console sends them to turn it on (docs/security.md).
   */
  PERFJUDGE_ORGANIZER_TWO_FACTOR: z.enum(['optional', 'required']).default('optional'),
  /**
   * The chaos drill's seed (tests/integration/chaos.test.ts; `npm run bench -- chaos` takes
   * --seed): unset, a fresh one, printed so that a failing drill can be replayed.
   */
  PERFJUDGE_CHAOS_SEED: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,32}$/, '1 to 32 letters, digits, _ or -')
    .optional(),
  /** Set by Next.js: 'production' for `next start`. */
  NODE_ENV: z.enum(['development', 'production', 'test']).optional(),
});
export type Env = z.infer<typeof envSchema>;
/** Every variable this module knows (the compose file's check uses it: tests/unit/docker-compose.test.ts). */
export const ENV_VARIABLES = Object.keys(envSchema.shape) as (keyof Env)[];

export class ConfigError extends AppError {
  override name = 'ConfigError';
  readonly code = 'config' as const;
}

let cached: Env | undefined;

export function env(): Env {
  if (cached) return cached;
  const parsed = envSchema.safeParse(process.env);
  if (!parsed.success) {
    throw new ConfigError(`Invalid environment:\n${describeIssues(parsed.error)}`);
  }
  cached = parsed.data;
  return cached;
}

const secretSchema = z.string().min(8, 'must be at least 8 characters').max(4096);

/**
 * A challenge secret named by its manifest (e.g. the benchmark seed's `seedEnv`). Returns undefined
 * when unset, so the caller decides whether a local, non-secret fallback is acceptable.
 */
export function challengeSecret(name: string): string | undefined {
  if (!/^[A-Z][A-Z0-9_]*$/.test(name))
    throw new ConfigError(`${name} is not an environment variable name`);
  const value = process.env[name];
  if (value === undefined || value === '') return undefined;
  const parsed = secretSchema.safeParse(value);
  if (!parsed.success) throw new ConfigError(`${name}: ${firstIssue(parsed.error)}`);
  return parsed.data;
}

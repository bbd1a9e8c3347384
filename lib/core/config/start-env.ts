// The variables `npm start` (scripts/start/main.ts) reads, validated at start-up like lib/core/config/env.ts.
// Separate from env.ts because several of them must be told apart from their defaults there
// (REDIS_URL, PERFJUDGE_PUBLIC_URL): unset means "start a private one" or "derive from PORT".
import { z } from 'zod';
import { parseByteSize } from '../../../contracts/size';
import { describeIssues } from '../../../contracts/zod-issues';
import { ConfigError } from './env';

const targetsSchema = z
  .string()
  .regex(/^(auto|none|[a-z0-9-]+(,[a-z0-9-]+)*)$/, 'auto, none, or a comma-separated target list')
  .default('auto');

const startEnvSchema = z.object({
  /** The web app's port. */
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  /** Where browsers reach the web app; default http://localhost:<PORT>. */
  PERFJUDGE_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** An existing PostgreSQL; unset: a private one under .data/postgres. */
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  /** An existing Redis; unset: a private one under .data/redis. */
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  /**
   * The benchmark input size the local runners judge with, e.g. 32MiB (development mode, labelled),
   * or `manifest` for the challenge's own size (official judging when the host matches the target).
   */
  PERFJUDGE_INPUT_SIZE: z
    .string()
    .refine(
      (v) => v === 'manifest' || (parseByteSize(v) ?? 0) > 0,
      'a size like 32MiB, or manifest',
    )
    .default('32MiB'),
  /** Most timed pairs per judging in development mode (fewer: faster, wider intervals). */
  PERFJUDGE_RUNS: z.coerce.number().int().min(1).max(1000).optional(),
  /** Which runners to start: `auto` (every target this host can serve), `none`, or a list. */
  PERFJUDGE_TARGETS: targetsSchema,
  /**
   * The runners' host-wide judging lock (default: the runner's, /run/lock/perfjudge-judging.lock,
   * shared with every runner on the machine so timings never overlap). A test platform may use a
   * private one so as not to wait for other runners' judgings.
   */
  PERFJUDGE_HOST_LOCK: z.string().startsWith('/', 'an absolute path').optional(),
  /**
   * The runners' scratch folders (default: the runner's, /tmp/perfjudge-runner). A runner holding
   * the host lock sweeps this folder, so a private lock needs a private work root: with
   * PERFJUDGE_HOST_LOCK set, the default becomes <data dir>/runner-work.
   */
  PERFJUDGE_WORK_ROOT: z.string().startsWith('/', 'an absolute path').optional(),
  /** How long a stopping child has after SIGTERM before it gets SIGKILL. */
  PERFJUDGE_STOP_GRACE_SECONDS: z.coerce.number().int().min(1).max(3600).default(20),
  /** Next.js build folder (next.config.ts reads the same variable); tests use their own. */
  PERFJUDGE_NEXT_DIST_DIR: z
    .string()
    .regex(/^\.next[A-Za-z0-9_-]*$/, 'a folder name starting with .next')
    .default('.next'),
  /** When `npm start` began (ms since the epoch): set by scripts/start.mjs, for the start-up clock. */
  PERFJUDGE_START_BEGAN_AT: z.coerce.number().int().positive().optional(),
  /** Skip `npm ci`, system packages and the Prisma client (already prepared by the bootstrap). */
  PERFJUDGE_START_SKIP_INSTALL: z.enum(['0', '1']).default('0'),
});
export type StartEnv = z.infer<typeof startEnvSchema>;

let cached: StartEnv | undefined;

export function startEnv(): StartEnv {
  if (cached) return cached;
  // An empty variable counts as unset (`PORT= npm start`), as shells make that easy to do.
  const raw = Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== ''));
  const parsed = startEnvSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(`Invalid environment:\n${describeIssues(parsed.error)}`);
  }
  cached = parsed.data;
  return cached;
}

/** The environment the orchestrator hands its children: its own, plus what it decided. */
export function childEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, ...extra };
}

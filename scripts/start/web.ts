// The web app's production build, rebuilt only when a source is newer, and its health check.
import { UnavailableError } from '../../contracts';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../lib/core/config/env';
import type { Lifecycle } from './lifecycle';
import type { StartPlan } from './plan';
import { startChild } from './process';
import { say } from './say';

const NEXT_BIN = path.join(REPO_ROOT, 'node_modules', 'next', 'dist', 'bin', 'next');

/** What `next build` compiles, relative to the checkout: a build older than any of them is stale. */
export const WEB_SOURCES = [
  'app',
  'lib',
  'contracts',
  'public',
  'next.config.ts',
  'package-lock.json',
  'tsconfig.json',
  'prisma/schema.prisma',
];

/** The newest modification time of the web app's sources under `root`. */
function newestSource(root: string): number {
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
  for (const p of WEB_SOURCES) visit(path.join(root, p));
  return newest;
}

/**
 * The reuse rule: the production build in `root`/`distDir` is used as it is when its BUILD_ID is
 * newer than every source (a second `npm start`, or a build made ahead); otherwise it is rebuilt.
 */
export function webBuildIsCurrent(root: string, distDir: string): boolean {
  const buildId = path.join(root, distDir, 'BUILD_ID');
  const built = existsSync(buildId) ? statSync(buildId).mtimeMs : 0;
  return built > newestSource(root);
}

export async function healthy(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(5_000) });
    return response.status === 200;
  } catch {
    return false;
  }
}

/** The production web build, unless it is newer than every source. */
export async function buildWebApp(plan: StartPlan, life: Lifecycle, webEnv: NodeJS.ProcessEnv) {
  const distDir = plan.config.PERFJUDGE_NEXT_DIST_DIR;
  if (webBuildIsCurrent(REPO_ROOT, distDir)) {
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
  if (code !== 0) throw new UnavailableError(`next build failed (exit ${code}); see [build] above`);
  say(`web app built in ${((Date.now() - buildStarted) / 1000).toFixed(0)} s`);
}

#!/usr/bin/env node
// `npm start`: the bootstrap. On a fresh clone node_modules does not exist yet, so this file uses
// Node's built-ins only: it installs the system packages (scripts/install-system-deps.sh), the npm
// dependencies (`npm ci`, when node_modules is missing or older than the lock file — the same check
// as scripts/test.sh) and the Prisma client, then hands over to the TypeScript orchestrator
// (scripts/start/main.ts), which validates the rest of the environment with zod.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The start-up clock starts here, before any install, and scripts/start/main.ts reports against it.
// eslint-disable-next-line no-restricted-syntax
process.env.PERFJUDGE_START_BEGAN_AT ??= String(Date.now());

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// eslint-disable-next-line no-restricted-syntax
const beganAt = Number(process.env.PERFJUDGE_START_BEGAN_AT);
const say = (line) =>
  process.stdout.write(`[start ${((Date.now() - beganAt) / 1000).toFixed(0)} s] ${line}\n`);

function run(command, args, what) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    process.stderr.write(`[start] ${what} failed (${command} ${args.join(' ')}); see above\n`);
    process.exit(1);
  }
}

const mtime = (file) => (existsSync(file) ? statSync(file).mtimeMs : 0);

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  process.stderr.write(
    `[start] Node ${process.versions.node} is too old: perfjudge needs 20.19+\n`,
  );
  process.exit(1);
}

// The one variable read here rather than in lib/core/config: zod is not installed yet when this runs.
// The orchestrator validates it again with the others (lib/core/config/start-env.ts).
// eslint-disable-next-line no-restricted-syntax
const skipInstall = process.env.PERFJUDGE_START_SKIP_INSTALL === '1';

if (!skipInstall) {
  say('checking system packages (scripts/install-system-deps.sh)');
  run('bash', ['scripts/install-system-deps.sh'], 'installing system packages');

  const lock = path.join(root, 'package-lock.json');
  const installed = path.join(root, 'node_modules', '.package-lock.json');
  if (!existsSync(installed) || mtime(lock) > mtime(installed)) {
    say('installing npm dependencies (npm ci) — about a minute on a fresh clone');
    run('npm', ['ci', '--no-audit', '--no-fund'], 'npm ci');
    say('npm dependencies installed');
  }

  // The generated client is gitignored; regenerate only when the schema changed, so a second
  // start does not touch it (and so does not look like a source change to the web build check).
  const schema = path.join(root, 'prisma', 'schema.prisma');
  const client = path.join(root, 'lib', 'server', 'db', 'generated', 'prisma', 'client.ts');
  if (mtime(client) < mtime(schema)) {
    say('generating the Prisma client');
    run('bash', ['scripts/db-generate.sh'], 'generating the Prisma client');
  }
}

const { register } = await import('tsx/esm/api');
register();
const { main } = await import('./start/main.ts');
// Exit rather than wait for the event loop to drain: every child and store is stopped by now.
process.exit(await main());

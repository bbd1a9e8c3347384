// knip: files, exports and dependencies nothing uses (`npx knip`; the static tier runs it). Next.js,
// vitest and Playwright are found by knip's plugins; the entries below are the ones only a command
// line, a spawned process or a folder's name reaches.
//
// `!` marks the product's files. `npx knip --production` lists what only tests use (about 110
// exports): the pure steps the tests check on scripted input (parsers of perf, cachegrind and
// sampler output, the statistics, argument builders, rate-limit constants) where the public path
// needs a compiler, a sandbox, hardware counters or a database. They are kept on purpose, so the
// static tier runs the default mode, which counts a test as a user.
import type { KnipConfig } from 'knip';

const config: KnipConfig = {
  entry: [
    // The CLI (`npx perfjudge`, the runner and scorer services) and its packaged build.
    'cli/main.ts!',
    'packages/cli/entry.ts!',
    // `npm run bench -- <name>` imports bench/<name>.ts by its name.
    'bench/*.ts!',
    'bench/ladder/*.ts!',
    // npm scripts, `npm start` and the web server the Docker image runs.
    'scripts/*.{ts,mjs}!',
    'scripts/start/main.ts!',
    // The judge finds challenges/<slug>/code.ts by its folder; a reference runs as a program.
    'challenges/*/code.ts!',
    'challenges/*/reference/*.ts!',
    // Programs the tests start as child processes.
    'tests/helpers/judge-in-child.ts',
    'tests/helpers/web-build.ts',
    'tests/fixtures/**/*.ts',
  ],
  project: ['**/*.{ts,tsx,mjs}!', '!tests/**!', '!dev/**!'],
  // A type that names a public function's parameter or result stays exported with it.
  ignoreExportsUsedInFile: { interface: true, type: true },
  // System programs the code runs (installed by scripts/install-system-deps.sh, not npm).
  ignoreBinaries: [
    'wine',
    'wineserver',
    'redis-server',
    'redis-cli',
    'useradd',
    'userdel',
    'unshare',
  ],
  // bench/web-latency.ts loads autocannon with createRequire (it has no ES module build).
  ignoreDependencies: ['autocannon'],
};

export default config;

// The direction of dependencies between our folders (DESIGN §1, docs/architecture.md), checked by
// dependency-cruiser: `npx depcruise --config .dependency-cruiser.mjs .` (scripts/test.sh) fails on
// a wrong-way import, type-only and dynamic ones included; tests/integration/layers.test.ts shows it failing.
// The same tool draws docs/layers.md (scripts/layer-graph.sh), so the picture cannot drift.
// Each rule names the files it applies to (`from`), what they must not import (`to`), and why.

/** A regular expression source matching any of `prefixes`: "a/b/" is the folder, "a/b" the module. */
function paths(...prefixes) {
  const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const one = (prefix) =>
    prefix.endsWith('/')
      ? escape(prefix)
      : `${escape(prefix)}(\\.[cm]?[jt]sx?|/index\\.[cm]?[jt]sx?)$`;
  return `^(${prefixes.map(one).join('|')})`;
}
/**
 * Packages by name: "pkg" is the package and its subpaths, "@scope/" the whole scope. Wherever
 * node_modules is (a symlinked one resolves outside the tree).
 */
function packages(...names) {
  return `(^|/)node_modules/(${names.map((n) => (n.endsWith('/') ? n : `${n}/`)).join('|')})`;
}
/**
 * `to` for "any of our own modules (not a package, not one of Node's) and the given packages,
 * except those `allowed`" (a pattern from paths()).
 */
function oursAndPackagesBut(allowed, ...names) {
  const otherPackages = names.length
    ? `node_modules/(?!${names.map((n) => (n.endsWith('/') ? n : `${n}/`)).join('|')})`
    : 'node_modules/';
  return { dependencyTypesNot: ['core'], pathNot: `${allowed}|${otherPackages}` };
}

/** The core: shared schemas and pure rules every process may use. Challenges plug into it. */
const CORE = ['contracts/', 'lib/core/', 'challenges/'];
/**
 * The judge library's leaves: code that drives compilers, sandboxes and hardware counters (the judge
 * hosts' business). The judge (runner/judge) and final sessions (runner/final) orchestrate them,
 * and the runner process (runner/service) drives both; a leaf never imports those.
 */
const JUDGE_LEAVES = [
  'runner/build/',
  'runner/sandbox/',
  'runner/measure/',
  'runner/windows/',
  'runner/host/',
  'runner/platform/',
];
/** The judge library: everything in runner/ but the runner process (runner/service). */
const JUDGE_LIBRARY = [...JUDGE_LEAVES, 'runner/final/', 'runner/intake/', 'runner/judge/'];
const DB_PACKAGES = ['@prisma/', 'prisma', 'pg'];
const PRODUCT = ['app/', 'cli/', 'scripts/', 'bin/', 'lib/', 'scorer/', 'prisma/'];

const rules = [
  {
    name: 'contracts-first',
    comment: 'contracts/ holds the shared schemas and imports nothing of ours',
    from: { path: paths('contracts/') },
    to: oursAndPackagesBut(paths('contracts/')),
  },
  {
    name: 'core-is-pure',
    comment:
      'the core rules (configuration, challenge packages, statistics, ranking, intake) depend on contracts/ and each other only',
    from: { path: paths(...CORE) },
    to: oursAndPackagesBut(paths(...CORE), ...DB_PACKAGES),
  },
  {
    name: 'core-never-imports-a-challenge',
    comment:
      'a challenge is a folder: the core finds challenges/<slug>/code.ts by its path at run time and never imports one',
    from: { path: paths('lib/core/', 'contracts/') },
    to: { path: paths('challenges/') },
  },
  {
    name: 'runners-need-redis-only',
    comment: 'runners need Redis only: no database, Prisma or web code on a judge host',
    from: {
      path: paths(
        'runner/',
        'lib/server/queue/connection',
        'lib/server/queue/runner-heartbeat',
        'cli/commands/runner',
        'cli/commands/doctor',
      ),
    },
    to: oursAndPackagesBut(
      paths(
        ...CORE,
        'runner/',
        'lib/server/queue/connection',
        'lib/server/queue/runner-heartbeat',
        'cli/option-values',
        'cli/usage-error',
        'cli/challenge-args',
        'cli/commands',
      ),
      ...DB_PACKAGES,
      'next',
      'react',
      'better-auth',
    ),
  },
  {
    name: 'judge-without-queue',
    comment:
      'the judge library runs without a queue: perfjudge judge and doctor (packed for contestants) need no Redis',
    from: { path: paths(...JUDGE_LIBRARY, 'cli/commands/doctor', 'cli/challenge-args') },
    to: {
      path: `${paths('runner/service/', 'lib/server/queue/')}|${packages('bullmq', 'ioredis')}`,
    },
  },
  {
    name: 'judge-leaves-below-the-judge',
    comment:
      "the judge library's leaves (build, sandbox, measure, windows, host, platform) sit under the judge and final sessions that orchestrate them: what they share with those lives in a leaf",
    from: { path: paths(...JUDGE_LEAVES) },
    to: { path: paths('runner/judge/', 'runner/final/', 'runner/service/') },
  },
  {
    name: 'web-and-data-not-runner',
    comment:
      "the web app and the data layer take intake and every other shared rule from the core: runner/ is the judge hosts' code",
    from: { path: paths('lib/', 'app/') },
    to: { path: paths('runner/') },
  },
  {
    name: 'data-layer-reads-the-database-only',
    comment:
      'the data layer reads and writes the database only: access and ranking rules come from the core',
    from: { path: paths('lib/server/db/') },
    to: {
      path: paths(
        'lib/server/web/',
        'lib/server/auth/',
        'lib/server/submit/',
        'lib/server/queue/',
        'lib/server/kit/',
      ),
    },
  },
  {
    name: 'no-front-end-below',
    comment: 'the data layer and the scorer never import a front end',
    from: { path: paths('lib/', 'scorer/', 'prisma/') },
    to: { path: paths('app/', 'cli/', 'scripts/', 'bench/', 'bin/') },
  },
  {
    name: 'auth-below-web',
    comment:
      'accounts sit below the web app: sign-in takes password lengths, client addresses and rate limits from lib/core/access, lib/core/net and lib/server/queue',
    from: { path: paths('lib/server/auth/') },
    to: { path: paths('lib/server/web/') },
  },
  {
    name: 'queue-never-reads-the-database',
    comment: 'the queue carries the jobs its callers hand it and never reads the database',
    from: { path: paths('lib/server/queue/') },
    to: {
      path: `${paths('lib/server/db/', 'lib/server/submit/', 'lib/server/web/', 'lib/server/auth/')}|${packages(...DB_PACKAGES)}`,
    },
  },
  {
    name: 'no-tests-outside-tests',
    comment:
      'product code, benchmarks and development fixtures never import tests: what tests and benchmarks share is in dev/',
    from: { path: paths(...PRODUCT, 'bench/', 'dev/') },
    to: { path: paths('tests/') },
  },
  {
    name: 'no-benchmarks-in-product',
    comment: 'product code never imports benchmarks',
    from: { path: paths(...PRODUCT) },
    to: { path: paths('bench/') },
  },
  {
    name: 'no-dev-fixtures-in-product',
    comment: 'development fixtures are for tests and benchmarks, never for product code',
    from: { path: paths(...PRODUCT) },
    to: { path: paths('dev/') },
  },
];

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: rules.map((rule) => ({ severity: 'error', ...rule })),
  options: {
    exclude: { path: '^(\\.next[^/]*|\\.data|build|coverage|lib/server/db/generated)/' },
    doNotFollow: { path: '(^|/)node_modules/' },
    // `import type` counts: the rule is about what depends on what, not what survives compiling.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      extensions: ['.ts', '.tsx', '.mts', '.mjs', '.js', '.cjs', '.json'],
    },
    reporterOptions: {
      mermaid: { minify: false },
    },
  },
};

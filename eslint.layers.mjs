// The direction of dependencies between our folders, enforced by `perfjudge/layers` (eslint.config.mjs
// applies it to every source file; tests/unit/eslint-layers.test.ts shows it failing a wrong-way
// import). The target layering is in docs/architecture.md; a rule below is one that
// holds today. Each rule names the files it applies to (path prefixes from the repository root),
// what they must not import (our folders or modules, "*" for all of ours, or packages) and the
// exceptions it allows.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.dirname(fileURLToPath(import.meta.url));

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
const JUDGE_LIBRARY = [
  'runner/build/',
  'runner/final/',
  'runner/host/',
  'runner/intake/',
  'runner/judge/',
  'runner/measure/',
  'runner/platform/',
  'runner/sandbox/',
  'runner/windows/',
];
/** The core: shared schemas and rules every process may use (contracts/ first of all). */
const CORE = [
  'contracts/',
  'lib/core/config/',
  'lib/core/async/',
  'lib/core/net/',
  'lib/core/challenge/',
  'lib/core/stats/',
  'lib/core/ranking/',
  'lib/core/access/',
  'lib/core/intake/',
  'lib/core/profile/',
  'challenges/',
];
const DB_PACKAGES = ['@prisma/', 'prisma', 'pg'];
const TEST_CODE = ['tests/'];
/** Development fixtures (private test databases, row and result builders) for tests and benchmarks. */
const DEV_FIXTURES = ['dev/'];

export const LAYER_RULES = [
  {
    files: ['contracts/'],
    forbid: ['*'],
    allow: ['contracts/', 'zod'],
    why: 'contracts/ holds the shared schemas and imports nothing of ours',
  },
  {
    files: CORE,
    forbid: ['*', ...DB_PACKAGES],
    allow: CORE,
    why: 'the core rules (configuration, challenge packages) depend on contracts/ and each other only',
  },
  {
    files: [
      'runner/',
      'lib/server/queue/connection',
      'lib/server/queue/runner-heartbeat',
      'cli/commands/runner',
      'cli/commands/doctor',
    ],
    forbid: ['*', ...DB_PACKAGES, 'next', 'react', 'better-auth'],
    allow: [
      ...CORE,
      'runner/',
      'lib/server/queue/connection',
      'lib/server/queue/runner-heartbeat',
      'cli/option-values',
      'cli/usage-error',
      'cli/challenge-args',
      'cli/commands',
    ],
    why: 'runners need Redis only: no database, Prisma or web code on a judge host',
  },
  {
    files: [...JUDGE_LIBRARY, 'cli/commands/doctor', 'cli/challenge-args'],
    forbid: ['runner/service/', 'lib/server/queue/', 'bullmq', 'ioredis'],
    why: 'the judge library runs without a queue: perfjudge judge and doctor (packed for contestants) need no Redis',
  },
  {
    files: JUDGE_LEAVES,
    forbid: ['runner/judge/', 'runner/final/', 'runner/service/'],
    why: "the judge library's leaves (build, sandbox, measure, windows, host, platform) sit under the judge and final sessions that orchestrate them: what they share with those lives in a leaf",
  },
  {
    files: ['lib/', 'app/'],
    forbid: [...JUDGE_LEAVES, ...TEST_CODE],
    why: 'the web app and the data layer never load code that drives compilers or sandboxes',
  },
  {
    files: ['lib/server/db/'],
    forbid: [
      'lib/server/web/',
      'lib/server/auth/',
      'lib/server/submit/',
      'lib/server/queue/',
      'lib/server/kit/',
    ],
    why: 'the data layer reads and writes the database only: access and ranking rules come from the core',
  },
  {
    files: ['lib/', 'scorer/', 'prisma/'],
    forbid: ['app/', 'cli/', 'scripts/', 'bench/', 'bin/', ...TEST_CODE],
    why: 'the data layer and the scorer never import a front end',
  },
  {
    files: ['app/', 'cli/', 'scripts/'],
    forbid: [...TEST_CODE, 'bench/'],
    why: 'product code never imports tests or benchmarks',
  },
  {
    // Wider than the JUDGE_MACHINERY rule above, which keeps its own message for those folders.
    files: ['lib/', 'app/'],
    forbid: ['runner/'],
    why: "the web app and the data layer take intake and every other shared rule from the core: runner/ is the judge hosts' code",
  },
  {
    files: ['lib/server/auth/'],
    forbid: ['lib/server/web/'],
    why: 'accounts sit below the web app: sign-in takes password lengths, client addresses and rate limits from lib/core/access, lib/core/net and lib/server/queue',
  },
  {
    files: ['lib/server/queue/'],
    forbid: [
      'lib/server/db/',
      'lib/server/submit/',
      'lib/server/web/',
      'lib/server/auth/',
      ...DB_PACKAGES,
    ],
    why: 'the queue carries the jobs its callers hand it and never reads the database',
  },
  {
    files: ['bench/', ...DEV_FIXTURES],
    forbid: TEST_CODE,
    why: 'benchmarks never import tests: what both need is in dev/',
  },
  {
    files: ['app/', 'cli/', 'scripts/', 'bin/', 'lib/', 'scorer/', 'prisma/'],
    forbid: DEV_FIXTURES,
    why: 'development fixtures are for tests and benchmarks, never for product code',
  },
];

/**
 * Whether `prefix` covers `target`: "a/b/" is the folder, its index and everything in it, "a/b" exactly that
 * module (a file without its extension, or a folder's index); for packages, "pkg" also covers
 * "pkg/sub". "*" is any of our own files.
 */
function covers(prefix, { ours, target }) {
  if (prefix === '*') return ours;
  if (prefix.endsWith('/')) return target.startsWith(prefix) || target === prefix.slice(0, -1);
  return target === prefix || (!ours && target.startsWith(`${prefix}/`));
}

/** What an import names: one of our modules (a repository path without extension) or a package. */
function importTarget(filename, specifier) {
  if (specifier.startsWith('.')) {
    const resolved = path.relative(ROOT, path.resolve(path.dirname(filename), specifier));
    return {
      ours: true,
      target: resolved
        .split(path.sep)
        .join('/')
        .replace(/\.(ts|tsx|mjs|js)$/, ''),
    };
  }
  return { ours: false, target: specifier };
}

/** The rule an import from `file` (repository-relative) breaks, with what it names; or undefined. */
export function layerViolation(file, specifier) {
  const imported = importTarget(path.join(ROOT, file), specifier);
  const module = { ours: true, target: file.replace(/\.(ts|tsx|mjs|js)$/, '') };
  const broken = LAYER_RULES.find(
    (rule) =>
      rule.files.some((prefix) => covers(prefix, module)) &&
      rule.forbid.some((prefix) => covers(prefix, imported)) &&
      !(rule.allow ?? []).some((prefix) => covers(prefix, imported)),
  );
  return broken && { target: imported.target, why: broken.why };
}

export const layersPlugin = {
  rules: {
    layers: {
      meta: {
        type: 'problem',
        docs: { description: 'Imports go one way between our folders (eslint.layers.mjs).' },
        schema: [],
        messages: { wrongWay: '{{file}} must not import {{target}}: {{why}}.' },
      },
      create(context) {
        const filename = context.filename;
        const file = path.relative(ROOT, filename).split(path.sep).join('/');
        const check = (node, source) => {
          if (!source || typeof source.value !== 'string') return;
          const found = layerViolation(file, source.value);
          if (found)
            context.report({
              node,
              messageId: 'wrongWay',
              data: { file, target: found.target, why: found.why },
            });
        };
        return {
          ImportDeclaration: (node) => check(node, node.source),
          ExportNamedDeclaration: (node) => check(node, node.source),
          ExportAllDeclaration: (node) => check(node, node.source),
          ImportExpression: (node) => check(node, node.source),
        };
      },
    },
  },
};

// The direction of imports is dependency-cruiser's (.dependency-cruiser.mjs): `npm test` runs
// scripts/layers.sh, so a wrong-way import fails it. Shown here by a real depcruise run with the
// real rules over a small tree of wrong-way and right-way files, written to a temporary folder laid
// out like the repository (so nothing is added to the tree other tests read).
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lib/core/config/env';

const execFileAsync = promisify(execFile);
const BIN = path.join(REPO_ROOT, 'node_modules', 'dependency-cruiser', 'bin');

/** Files imported by the ones below; their content does not matter to the rules. */
const TARGETS = [
  'contracts/index.ts',
  'lib/core/config/env.ts',
  'lib/core/challenge/load-manifest.ts',
  'lib/core/challenge/challenge-code.ts',
  'lib/server/db/client.ts',
  'lib/server/submit/submit-patch.ts',
  'lib/server/web/services.ts',
  'runner/service/runner-service.ts',
  'runner/judge/judge.ts',
  'runner/sandbox/index.ts',
  'challenges/demo/generator.ts',
  'tests/helpers/judging.ts',
  'dev/db-fixtures.ts',
];

/** Each importing file, and the violations (rule: target) a run must report for it. */
const CASES: Record<string, { code: string; expected: string[] }> = {
  'runner/host/wrong-way.ts': {
    // Type-only, package and dynamic imports count: the rules are about what depends on what.
    code:
      "import type { Db } from '../../lib/server/db/client';\nimport { PrismaClient } from '@prisma/client';\n" +
      "export const load = () => import('../service/runner-service');\nexport type X = [Db, PrismaClient];\n",
    expected: [
      'judge-leaves-below-the-judge: runner/service/runner-service.ts',
      'judge-without-queue: runner/service/runner-service.ts',
      'runners-need-redis-only: lib/server/db/client.ts',
      'runners-need-redis-only: node_modules/@prisma/client',
    ],
  },
  'runner/measure/wrong-way.ts': {
    code: "export { judge } from '../judge/judge';\n",
    expected: ['judge-leaves-below-the-judge: runner/judge/judge.ts'],
  },
  'app/wrong-way.ts': {
    code: "export { createSandbox } from '../runner/sandbox';\n",
    expected: ['web-and-data-not-runner: runner/sandbox/index.ts'],
  },
  'contracts/wrong-way.ts': {
    code: "export { env } from '../lib/core/config/env';\n",
    expected: ['contracts-first: lib/core/config/env.ts'],
  },
  'lib/core/challenge/wrong-way.ts': {
    code: "export { generate } from '../../../challenges/demo/generator';\n",
    expected: ['core-never-imports-a-challenge: challenges/demo/generator.ts'],
  },
  'lib/core/intake/wrong-way.ts': {
    code: "export { submitPatch } from '../../server/submit/submit-patch';\n",
    expected: ['core-is-pure: lib/server/submit/submit-patch.ts'],
  },
  'lib/server/auth/wrong-way.ts': {
    code: "export { webQueues } from '../web/services';\n",
    expected: ['auth-below-web: lib/server/web/services.ts'],
  },
  'lib/server/db/wrong-way.ts': {
    code: "export { webQueues } from '../web/services';\n",
    expected: ['data-layer-reads-the-database-only: lib/server/web/services.ts'],
  },
  'lib/server/queue/wrong-way.ts': {
    code: "import type { Db } from '../db/client';\nexport type X = Db;\n",
    expected: ['queue-never-reads-the-database: lib/server/db/client.ts'],
  },
  'bench/wrong-way.ts': {
    code: "export { judgeForTest } from '../tests/helpers/judging';\n",
    expected: ['no-tests-outside-tests: tests/helpers/judging.ts'],
  },
  'scorer/wrong-way.ts': {
    code: "export { makeUser } from '../dev/db-fixtures';\n",
    expected: ['no-dev-fixtures-in-product: dev/db-fixtures.ts'],
  },
  // The right way: the judge uses the core and the leaves; a challenge uses the core's types.
  'runner/judge/right-way.ts': {
    code:
      "import { z } from 'zod';\nimport { slugSchema } from '../../contracts';\n" +
      "import { loadChallenge } from '../../lib/core/challenge/load-manifest';\n" +
      "import { createSandbox } from '../sandbox';\nexport const x = [z, slugSchema, loadChallenge, createSandbox];\n",
    expected: [],
  },
  'challenges/demo/code.ts': {
    code: "import type { ChallengeCode } from '../../lib/core/challenge/challenge-code';\nexport type X = ChallengeCode;\n",
    expected: [],
  },
};

interface CruiseResult {
  summary: { violations: { rule: { name: string }; from: string; to: string }[] };
}

let tree: string;
let json: string;

beforeAll(async () => {
  tree = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-layers-'));
  await copyFile(
    path.join(REPO_ROOT, '.dependency-cruiser.mjs'),
    path.join(tree, '.dependency-cruiser.mjs'),
  );
  await symlink(path.join(REPO_ROOT, 'node_modules'), path.join(tree, 'node_modules'));
  const files = [
    ...TARGETS.map((file) => [file, 'export const x = 1;\n'] as const),
    ...Object.entries(CASES).map(([file, { code }]) => [file, code] as const),
  ];
  for (const [file, code] of files) {
    await mkdir(path.dirname(path.join(tree, file)), { recursive: true });
    await writeFile(path.join(tree, file), code);
  }
  const { stdout } = await execFileAsync(
    process.execPath,
    [
      path.join(BIN, 'dependency-cruise.mjs'),
      '--config',
      '.dependency-cruiser.mjs',
      '--output-type',
      'json',
      '.',
    ],
    { cwd: tree, maxBuffer: 64 << 20 },
  );
  json = path.join(tree, 'cruise.json');
  await writeFile(json, stdout);
});

afterAll(async () => {
  await rm(tree, { recursive: true, force: true });
});

describe('the layer rules (dependency-cruiser)', () => {
  it('report every wrong-way import by its rule, and none that goes the right way', async () => {
    const result = JSON.parse(await readFile(json, 'utf8')) as CruiseResult;
    const found: Record<string, string[]> = {};
    for (const { rule, from, to } of result.summary.violations) {
      const target = /(^|\/)node_modules\/@prisma\/client\//.test(to)
        ? 'node_modules/@prisma/client'
        : to;
      (found[from] ??= []).push(`${rule.name}: ${target}`);
    }
    for (const [file, { expected }] of Object.entries(CASES))
      expect((found[file] ?? []).sort(), file).toEqual(expected);
    expect(Object.keys(found).sort()).toEqual(
      Object.keys(CASES)
        .filter((file) => CASES[file]!.expected.length > 0)
        .sort(),
    );
  });

  it('make the check fail, naming the file, the import and the rule', async () => {
    const failed = await execFileAsync(
      process.execPath,
      [path.join(BIN, 'depcruise-fmt.mjs'), '--exit-code', '--output-type', 'err', json],
      { cwd: tree },
    ).then(
      () => null,
      (error: { code: number; stdout: string }) => error,
    );
    expect(failed?.code).toBeGreaterThan(0);
    expect(failed?.stdout).toContain(
      'error core-never-imports-a-challenge: lib/core/challenge/wrong-way.ts → challenges/demo/generator.ts',
    );
  });
});

// The direction of imports is the linter's (eslint.layers.mjs, rule perfjudge/layers): `npm test`
// runs `eslint .`, so a wrong-way import fails it. Shown here by linting source text as a file at
// the path it would have (ESLint picks the rules by that path; nothing is written to the tree).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lib/core/config/env';

const eslint = new ESLint({ cwd: REPO_ROOT });

/** The perfjudge/layers messages for `code` linted as the file at `file` (repository-relative). */
async function layerErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(REPO_ROOT, file) });
  return result!.messages.filter((m) => m.ruleId === 'perfjudge/layers').map((m) => m.message);
}

describe('the layers rule', () => {
  it('fails a runner file that reaches the database, Prisma or the queue producer', async () => {
    expect(
      await layerErrors(
        'runner/judge/wrong-way.ts',
        "import { db } from '../../lib/server/db/client';\nexport const x = db;\n",
      ),
    ).toEqual([
      'runner/judge/wrong-way.ts must not import lib/server/db/client: runners need Redis only: no database, Prisma or web code on a judge host.',
    ]);
    expect(
      await layerErrors(
        'runner/service/wrong-way.ts',
        "import { PrismaClient } from '@prisma/client';\nimport { enqueueSubmission } from '../../lib/server/queue/producer';\nexport const x = [PrismaClient, enqueueSubmission];\n",
      ),
    ).toHaveLength(2);
    // Type-only and dynamic imports count too: the rule is about what depends on what.
    expect(
      await layerErrors(
        'cli/commands/runner.ts',
        "import type { Db } from '../../lib/server/db/client';\nexport const load = () => import('../../scorer/service');\nexport type X = Db;\n",
      ),
    ).toHaveLength(2);
  });

  it('keeps perfjudge doctor and the judge library free of the queue and the database', async () => {
    expect(
      await layerErrors(
        'cli/commands/doctor.ts',
        "import { Queue } from 'bullmq';\nimport { db } from '../../lib/server/db/client';\nexport const x = [Queue, db];\n",
      ),
    ).toHaveLength(2);
    expect(
      await layerErrors(
        'runner/host/wrong-way.ts',
        "import { startRunnerService } from '../service/runner-service';\nexport const x = startRunnerService;\n",
      ),
    ).toEqual([
      'runner/host/wrong-way.ts must not import runner/service/runner-service: the judge library runs without a queue: perfjudge judge and doctor (packed for contestants) need no Redis.',
    ]);
  });

  it('fails a leaf of the judge library importing the judge, final sessions or the runner process', async () => {
    expect(
      await layerErrors(
        'runner/measure/wrong-way.ts',
        "import { judge } from '../judge/judge';\nimport { runFinalSession } from '../final/final-session';\nexport const x = [judge, runFinalSession];\n",
      ),
    ).toEqual([
      "runner/measure/wrong-way.ts must not import runner/judge/judge: the judge library's leaves (build, sandbox, measure, windows, host, platform) sit under the judge and final sessions that orchestrate them: what they share with those lives in a leaf.",
      "runner/measure/wrong-way.ts must not import runner/final/final-session: the judge library's leaves (build, sandbox, measure, windows, host, platform) sit under the judge and final sessions that orchestrate them: what they share with those lives in a leaf.",
    ]);
    expect(
      await layerErrors(
        'runner/platform/wrong-way.ts',
        "import { JudgeError } from '../judge/errors';\nexport const x = JudgeError;\n",
      ),
    ).toHaveLength(1);
    // runner/windows/ runs without a queue too now that the pre-check's Redis side is the runner's.
    expect(
      await layerErrors(
        'runner/windows/wrong-way.ts',
        "import type { Redis } from 'ioredis';\nexport type X = Redis;\n",
      ),
    ).toHaveLength(1);
    // The other way is the rule: the judge orchestrates the leaves.
    expect(
      await layerErrors(
        'runner/judge/right-way.ts',
        "import { runProgram } from '../sandbox/run-program';\nimport { createTargetPlatform } from '../platform';\nexport const x = [runProgram, createTargetPlatform];\n",
      ),
    ).toEqual([]);
  });

  it('fails the web app loading the sandbox, and contracts/ importing anything of ours', async () => {
    expect(
      await layerErrors(
        'app/wrong-way.ts',
        "import { createSandbox } from '../runner/sandbox';\nexport const x = createSandbox;\n",
      ),
    ).toEqual([
      'app/wrong-way.ts must not import runner/sandbox: the web app and the data layer never load code that drives compilers or sandboxes.',
    ]);
    expect(
      await layerErrors(
        'contracts/wrong-way.ts',
        "import { env } from '../lib/core/config/env';\nexport const x = env;\n",
      ),
    ).toHaveLength(1);
    expect(
      await layerErrors(
        'lib/core/challenge/wrong-way.ts',
        "import { db } from '../db/client';\nexport const x = db;\n",
      ),
    ).toHaveLength(1);
  });

  it('keeps lib/ and app/ off runner/: intake rules come from the core (lib/core/intake)', async () => {
    expect(
      await layerErrors(
        'lib/server/submit/wrong-way.ts',
        "import { inspectPatch } from '../../runner/intake';\nexport const x = inspectPatch;\n",
      ),
    ).toEqual([
      "lib/server/submit/wrong-way.ts must not import runner/intake: the web app and the data layer take intake and every other shared rule from the core: runner/ is the judge hosts' code.",
    ]);
    expect(
      await layerErrors(
        'app/api/wrong-way.ts',
        "import { judge } from '../../runner/judge/judge';\nexport const x = judge;\n",
      ),
    ).toHaveLength(1);
    // lib/core/intake is in the core: it imports nothing above it.
    expect(
      await layerErrors(
        'lib/core/intake/wrong-way.ts',
        "import { submitPatch } from '../submit/submit-patch';\nexport const x = submitPatch;\n",
      ),
    ).toHaveLength(1);
  });

  it('keeps sign-in below the web app and the queue off the database', async () => {
    expect(
      await layerErrors(
        'lib/server/auth/wrong-way.ts',
        "import { webQueues } from '../web/services';\nexport const x = webQueues;\n",
      ),
    ).toEqual([
      'lib/server/auth/wrong-way.ts must not import lib/server/web/services: accounts sit below the web app: sign-in takes password lengths, client addresses and rate limits from lib/core/access, lib/core/net and lib/server/queue.',
    ]);
    expect(
      await layerErrors(
        'lib/server/queue/wrong-way.ts',
        "import type { Db } from '../db/client';\nimport { getJudgingJob } from '../db/get-judging-job';\nexport const x = getJudgingJob;\nexport type X = Db;\n",
      ),
    ).toEqual([
      'lib/server/queue/wrong-way.ts must not import lib/server/db/client: the queue carries the jobs its callers hand it and never reads the database.',
      'lib/server/queue/wrong-way.ts must not import lib/server/db/judgings/get-judging-job: the queue carries the jobs its callers hand it and never reads the database.',
    ]);
  });

  it('keeps benchmarks off tests, and product code off the development fixtures', async () => {
    expect(
      await layerErrors(
        'bench/wrong-way.ts',
        "import { judgeForTest } from '../tests/helpers/judging';\nexport const x = judgeForTest;\n",
      ),
    ).toEqual([
      'bench/wrong-way.ts must not import tests/helpers/judging: benchmarks never import tests: what both need is in dev/.',
    ]);
    expect(
      await layerErrors(
        'dev/wrong-way.ts',
        "import { deleteKeys } from '../tests/helpers/queue';\nexport const x = deleteKeys;\n",
      ),
    ).toHaveLength(1);
    expect(
      await layerErrors(
        'scorer/wrong-way.ts',
        "import { makeUser } from '../dev/db-fixtures';\nexport const x = makeUser;\n",
      ),
    ).toEqual([
      'scorer/wrong-way.ts must not import dev/db-fixtures: development fixtures are for tests and benchmarks, never for product code.',
    ]);
  });

  it('passes the imports that go the right way, and the real files at the edges of the layers', async () => {
    expect(
      await layerErrors(
        'runner/judge/right-way.ts',
        "import { z } from 'zod';\nimport { slugSchema } from '../../contracts';\nimport { loadChallenge } from '../../lib/core/challenge/load-manifest';\nimport { createSandbox } from '../sandbox';\nexport const x = [z, slugSchema, loadChallenge, createSandbox];\n",
      ),
    ).toEqual([]);
    for (const file of [
      'runner/service/index.ts',
      'runner/service/runner-service.ts',
      'cli/commands/runner.ts',
      'cli/commands/doctor.ts',
      // The files whose wrong-way imports were moved down (docs/architecture.md).
      'lib/server/auth/auth.ts',
      'lib/server/auth/auth-limits.ts',
      'lib/server/queue/producer.ts',
      'lib/server/submit/submit-patch.ts',
      'bench/host-lock.ts',
    ])
      expect(
        await layerErrors(file, await readFile(path.join(REPO_ROOT, file), 'utf8')),
        file,
      ).toEqual([]);
  });

  it('is part of npm test: scripts/test.sh lints the whole tree', async () => {
    expect(await readFile(path.join(REPO_ROOT, 'scripts/test.sh'), 'utf8')).toMatch(
      /^npx eslint \.$/m,
    );
  });
});

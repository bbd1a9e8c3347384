// The chaos drill in CI (issue 27; dev/chaos/scenario.ts, and `npm run bench -- chaos` for a long
// run): real `perfjudge runner` processes for both targets (linux-intel in development mode,
// windows-amd emulated under Wine), a real `perfjudge scorer`, a PRIVATE PostgreSQL cluster
// (initdb'd for this test on its own port, so it can really crash and restart: the shared server
// other tests use is never touched) and this machine's Redis under a private key prefix.
// Four seeded submissions (eight judgings: every fault still strikes with work in flight; six cost
// CI a third more judging), then one fault of each kind at seeded moments: kill -9 of a runner and
// of the scorer (each started again), a second scorer with another environment (256 MiB, another
// seed), a Redis loss (every key of the test's prefix deleted: what FLUSHALL does to the platform,
// without touching other tests' keys) and a PostgreSQL crash (immediate shutdown) and restart.
// The invariants: nothing lost or duplicated, every result on the contest's one definition,
// re-runs only of work in flight at a fault, health answering throughout (the health logic itself,
// lib/server/web/health.ts, asked every 250 ms: starting the web app would cost CI a build).
// The seed is printed; replay one with PERFJUDGE_CHAOS_SEED=<seed>.
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { env } from '../../lib/core/config/env';
import { TEST_DATA_DIR } from '../../dev/test-data-dir';
import { formatFigures } from '../../dev/chaos/invariants';
import { CI_CHAOS_PATCHES, FAULT_KINDS, newSeed } from '../../dev/chaos/plan';
import { runChaos } from '../../dev/chaos/scenario';

const SEED = env().PERFJUDGE_CHAOS_SEED ?? newSeed();
const SUBMISSIONS = 4;

it('judges every submission once on the contest’s definition through seeded faults', async () => {
  const replay = `PERFJUDGE_CHAOS_SEED=${SEED} npx vitest run tests/integration/chaos.test.ts`;
  console.log(`chaos seed ${SEED} (replay: ${replay})`);
  const lines: string[] = [];
  // Every service's lines, in arrival order, for a failure.
  const logFile = path.join(TEST_DATA_DIR, `chaos-${SEED}.log`);
  await mkdir(TEST_DATA_DIR, { recursive: true });
  const serviceLog = createWriteStream(logFile);
  const report = await runChaos({
    seed: SEED,
    submissions: SUBMISSIONS,
    faults: FAULT_KINDS.length,
    arrivalMs: 10_000,
    patches: CI_CHAOS_PATCHES,
    // 240 s ran out on a slow host (clean-clone CI, 2026-12-05: the whole tier ran 1.6–3.5× its usual time).
    settleTimeoutMs: 420_000,
    log: (line) => {
      lines.push(line);
      serviceLog.write(`${new Date().toISOString()} [drill] ${line}\n`);
    },
    echo: (line) => serviceLog.write(`${line}\n`),
  }).finally(() => serviceLog.end());
  const { figures, violations } = report.verdict;
  console.log(`chaos seed ${SEED}:\n${formatFigures(figures, report.wallMs)}`);
  const context = `seed ${SEED} (replay: ${replay}; every line: ${logFile})\n${lines.join('\n')}\n${report.logs()}`;
  expect(violations, context).toEqual([]);
  expect(figures.submissions, context).toBe(SUBMISSIONS);
  for (const kind of FAULT_KINDS) expect(figures.faults[kind], kind).toBeGreaterThanOrEqual(1);
}, 900_000);

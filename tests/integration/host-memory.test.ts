// The host's memory conditions are part of the benchmark definition: a runner on a host that
// differs refuses to start, and a judging there is labelled development mode with the differences
// (the sysfs/procfs root is injected with recorded files of such a host).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lib/config/env';
import { createSandbox } from '../../runner/sandbox';
import { RunnerConfigError, startRunnerService } from '../../runner/service';
import { judge } from '../../runner/judge/judge';
import { TEST_DATA_DIR, wordcountChallenge } from '../helpers/judging';

const host = (name: string) => path.join(REPO_ROOT, 'tests/fixtures/host', name);
const REJECTED_PATCH = '--- a/main.cpp\n+++ b/main.cpp\n@@ -1 +1 @@\n-x\n+y\n';

describe('host memory conditions', () => {
  it('a runner refuses a host whose THP mode and huge page pool differ, naming both fixes', async () => {
    const attempt = startRunnerService({
      target: 'linux-intel',
      redisUrl: 'redis://127.0.0.1:1',
      prefix: 'never-used',
      sandbox: createSandbox(),
      dataDir: TEST_DATA_DIR,
      hostRoot: host('busy-desktop'),
    });
    await expect(attempt).rejects.toThrow(RunnerConfigError);
    await expect(attempt).rejects.toThrow(
      /wordcount: transparent huge pages are "always", the benchmark definition says "madvise".*echo madvise.*wordcount: the 2 MiB huge page pool holds 512 pages \(1GiB\).*vm\.nr_hugepages=0.*--dev-mode/,
    );
  });

  it('a judging on such a host is labelled development mode with the differences', async () => {
    const challenge = await wordcountChallenge();
    const common = {
      challenge,
      target: 'linux-intel' as const,
      patchText: REJECTED_PATCH,
      sandbox: createSandbox(),
      dataDir: TEST_DATA_DIR,
      benchmark: { seed: 'test-benchmark', sizeBytes: 1 << 20, rareSeparators: false },
      benchmarkSeedIsSecret: false,
      publicInput: null,
      devMode: true,
    };
    const differing = await judge({ ...common, hostRoot: host('busy-desktop') });
    expect(differing.verdict).toBe('REJECTED');
    expect(differing.host.devMode).toBe(true);
    expect(differing.host.hostDifferences).toHaveLength(2);
    expect(differing.host.hostDifferences.join('\n')).toMatch(/"always".*\n.*512 pages/);
    expect(differing.warnings.join('\n')).toMatch(
      /development mode: this host differs from the benchmark definition: transparent huge pages are "always"/,
    );
    const matching = await judge({ ...common, hostRoot: host('tuned-intel') });
    expect(matching.host.hostDifferences).toEqual([]);
    expect(matching.warnings.join('\n')).not.toMatch(/differs from the benchmark definition/);
  });
});

// The host checks on recorded /proc and /sys files (tests/fixtures/host/): parsers, each verdict
// and its fix, the memory conditions against the manifest, the noise summary, the report.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostReportSchema, worstVerdict, type HostMemory } from '../../contracts';
import { REPO_ROOT } from '../../lib/core/config/env';
import { describeHostMemory, hugePageHint } from '../../lib/core/challenge/host-conditions';
import { loadChallenge } from '../../lib/core/challenge/load-manifest';
import { hostReport } from '../../runner/host/doctor';
import { formatHostReport, summarizeHostReport } from '../../runner/host/format-host-report';
import {
  checkHostMemory,
  hostMemoryDifferences,
  parseMeminfo,
  readHostMemory,
} from '../../runner/host/memory';
import { summarizeNoise } from '../../runner/host/noise-probe';
import { installCommand } from '../../runner/host/requirements';
import {
  loadSample,
  noiseCheck,
  readHostSnapshot,
  timingChecks,
} from '../../runner/host/timing-checks';
import { createSandbox } from '../../runner/sandbox';

const FIXTURES = path.join(REPO_ROOT, 'tests/fixtures/host');
const root = (name: string) => path.join(FIXTURES, name);
const MADVISE_NO_POOL: HostMemory = { transparentHugePages: 'madvise', hugePages: 'none' };
const NEVER_1GIB: HostMemory = { transparentHugePages: 'never', hugePages: 1024 ** 3 };

describe('host files', () => {
  it('parses /proc/meminfo as this VM recorded it', async () => {
    const meminfo = parseMeminfo(await readFile(`${root('firecracker-vm')}/proc/meminfo`, 'utf8'));
    expect(meminfo.get('Hugepagesize')).toBe(2048);
    expect(meminfo.get('HugePages_Total')).toBe(0);
  });

  it('reads the THP mode and the 2 MiB pool from sysfs, and from /proc/meminfo without it', async () => {
    expect(await readHostMemory(root('busy-desktop'))).toEqual({
      transparentHugePages: 'always',
      hugePages: { total: 512, free: 500 },
    });
    // No hugepages-2048kB folder recorded: HugePages_* of the default (2 MiB) size.
    expect(await readHostMemory(root('firecracker-vm'))).toEqual({
      transparentHugePages: 'madvise',
      hugePages: { total: 0, free: 0 },
    });
    expect(await readHostMemory(root('no-such-host'))).toEqual({
      transparentHugePages: null,
      hugePages: null,
    });
  });
});

describe('host memory against the benchmark definition', () => {
  it('matches a host that provides what the manifest says', async () => {
    expect(
      hostMemoryDifferences(MADVISE_NO_POOL, await readHostMemory(root('tuned-intel'))),
    ).toEqual([]);
    expect(hostMemoryDifferences(NEVER_1GIB, await readHostMemory(root('amd-boost')))).toEqual([]);
  });

  it('names each difference with its fix', async () => {
    const desktop = await readHostMemory(root('busy-desktop'));
    const differences = hostMemoryDifferences(MADVISE_NO_POOL, desktop);
    expect(differences.map((d) => d.item)).toEqual(['transparent-huge-pages', 'huge-pages']);
    expect(differences[0]!.message).toMatch(/"always", the benchmark definition says "madvise"/);
    expect(differences[0]!.fix).toMatch(/echo madvise > \/sys\/kernel\/mm\/transparent_hugepage/);
    expect(differences[1]!.message).toMatch(/512 pages \(1GiB\).*says none/);
    expect(differences[1]!.fix).toMatch(/vm\.nr_hugepages=0/);
    // The right size, but pages taken by someone else: the judged program would not get them all.
    const taken = hostMemoryDifferences(
      { transparentHugePages: 'always', hugePages: 1024 ** 3 },
      desktop,
    );
    expect(taken.map((d) => d.message)).toEqual([
      "12 of the pool's 512 huge pages are taken by other processes",
    ]);
    expect(await checkHostMemory(undefined, root('busy-desktop'))).toEqual([]);
    expect((await checkHostMemory(NEVER_1GIB, root('no-such-host'))).join('\n')).toMatch(
      /not readable/,
    );
  });

  it('says the conditions in words for the statement and the page', () => {
    expect(describeHostMemory(MADVISE_NO_POOL)).toEqual({
      transparentHugePages: expect.stringMatching(/^madvise: only memory you madvise/),
      hugePages: expect.stringMatching(/MAP_HUGETLB fails with ENOMEM/),
    });
    expect(describeHostMemory(NEVER_1GIB).hugePages).toMatch(
      /^1GiB reserved \(512 pages of 2 MiB\)/,
    );
  });

  it('warns a patch that adds MAP_HUGETLB when hosts have no pool, and only then', () => {
    const patch =
      '--- a/wordcount.cpp\n+++ b/wordcount.cpp\n@@ -1 +1 @@\n-x\n+  p = mmap(0, n, P, MAP_PRIVATE | MAP_HUGETLB, -1, 0);\n';
    expect(hugePageHint(patch, MADVISE_NO_POOL)).toMatch(
      /no huge page pool.*madvise\(MADV_HUGEPAGE\) works/,
    );
    expect(hugePageHint(patch, { transparentHugePages: 'never', hugePages: 'none' })).toMatch(
      /transparent huge pages are off too/,
    );
    expect(hugePageHint(patch, NEVER_1GIB)).toBeNull();
    expect(hugePageHint(patch, undefined)).toBeNull();
    // Removed or context lines are not what the solution does.
    expect(hugePageHint(patch.replace('+  p =', '-  p ='), MADVISE_NO_POOL)).toBeNull();
  });

  it('is stated in the wordcount statement as the manifest has it', async () => {
    const { manifest, dir } = await loadChallenge('wordcount');
    expect(manifest.host?.memory).toEqual(MADVISE_NO_POOL);
    const readme = await readFile(path.join(dir, manifest.readme), 'utf8');
    expect(readme).toMatch(/transparent huge pages are in \*\*madvise\*\* mode/);
    expect(readme).toMatch(
      /\*\*no reserved huge page pool\*\*, so `mmap`\s+with `MAP_HUGETLB` fails with `ENOMEM`/,
    );
  });
});

describe('timing checks', () => {
  it('finds nothing to fix on a tuned judge host', async () => {
    const snapshot = await readHostSnapshot(3, root('tuned-intel'));
    expect(snapshot).toMatchObject({
      governor: 'performance',
      intelNoTurbo: '1',
      siblings: [7],
      isolated: [3, 7],
      nohzFull: [3, 7],
      perfEventParanoid: 1,
    });
    const load = loadSample(
      'cpu3 1000 0 100 275000 0 0 0 0\ncpu7 10 0 0 1000 0 0 0 0\n',
      'cpu3 1000 0 101 275099 0 0 0 0\ncpu7 10 0 0 1100 0 0 0 0\n',
      3,
      [7],
    );
    expect(load).toMatchObject({ windowMs: 1000, pinnedBusy: 0.01, pinnedSteal: 0 });
    const checks = timingChecks(
      snapshot,
      load,
      { noise: null, whyNot: 'skipped' },
      MADVISE_NO_POOL,
    );
    const verdicts = Object.fromEntries(checks.map((c) => [c.id, c.verdict]));
    expect(verdicts).toEqual({
      noise: 'unknown',
      'cpu-load': 'ok',
      // A sibling that exists, even idle, shares the core: a warning with its fix.
      'smt-sibling': 'warn',
      governor: 'ok',
      turbo: 'ok',
      'isolated-cpu': 'ok',
      'perf-event-paranoid': 'ok',
      'transparent-huge-pages': 'ok',
      'huge-pages': 'ok',
    });
    expect(checks.find((c) => c.id === 'smt-sibling')!.fix).toMatch(/smt\/control/);
  });

  it('flags everything wrong on a busy desktop, each with a fix', async () => {
    const snapshot = await readHostSnapshot(3, root('busy-desktop'));
    expect(snapshot.siblings).toEqual([1]);
    expect(snapshot.nohzFull).toEqual([]);
    const load = loadSample(
      'cpu1 100 0 0 100 0 0 0 0\ncpu3 100 0 0 100 0 0 0 0\n',
      'cpu1 180 0 0 120 0 0 0 0\ncpu3 130 0 0 150 0 0 0 20\n',
      3,
      [1],
    );
    expect(load!.pinnedBusy).toBeCloseTo(0.5);
    expect(load!.pinnedSteal).toBeCloseTo(0.2);
    expect(load!.siblingsBusy.get(1)).toBeCloseTo(0.8);
    const checks = timingChecks(snapshot, load, { noise: null, whyNot: null }, MADVISE_NO_POOL);
    const byId = Object.fromEntries(checks.map((c) => [c.id, c]));
    expect(byId['cpu-load']).toMatchObject({
      verdict: 'bad',
      detail: expect.stringMatching(/20\.0% stolen/),
    });
    expect(byId['smt-sibling']).toMatchObject({
      verdict: 'bad',
      detail: expect.stringMatching(/CPU 1 80\.0% busy/),
    });
    expect(byId.governor).toMatchObject({
      verdict: 'warn',
      fix: expect.stringMatching(/cpupower frequency-set -g performance/),
    });
    expect(byId.turbo).toMatchObject({
      verdict: 'warn',
      fix: expect.stringMatching(/intel_pstate\/no_turbo/),
    });
    expect(byId['isolated-cpu']).toMatchObject({
      verdict: 'warn',
      fix: expect.stringMatching(/isolcpus=3 nohz_full=3/),
    });
    expect(byId['perf-event-paranoid']).toMatchObject({
      verdict: 'warn',
      fix: 'sudo sysctl -w kernel.perf_event_paranoid=2',
    });
    expect(byId['transparent-huge-pages']!.verdict).toBe('bad');
    expect(byId['huge-pages']!.verdict).toBe('bad');
    for (const c of checks.filter((x) => x.verdict === 'warn' || x.verdict === 'bad'))
      expect(c.fix, c.id).toBeTruthy();
  });

  it('says unknown where a VM hides the setting, and reads boost on AMD', async () => {
    const vm = timingChecks(
      await readHostSnapshot(1, root('firecracker-vm')),
      null,
      { noise: null, whyNot: null },
      undefined,
    );
    const v = Object.fromEntries(vm.map((c) => [c.id, c.verdict]));
    expect(v).toMatchObject({
      governor: 'unknown',
      turbo: 'unknown',
      'cpu-load': 'unknown',
      'smt-sibling': 'ok',
      'isolated-cpu': 'warn',
    });
    // No conditions in the manifest: what the host has, but no verdict.
    expect(v['transparent-huge-pages']).toBe('unknown');
    const amd = timingChecks(
      await readHostSnapshot(0, root('amd-boost')),
      null,
      { noise: null, whyNot: null },
      NEVER_1GIB,
    );
    const byId = Object.fromEntries(amd.map((c) => [c.id, c]));
    expect(byId.turbo).toMatchObject({
      verdict: 'warn',
      fix: expect.stringMatching(/cpufreq\/boost/),
    });
    expect(byId.governor).toMatchObject({
      verdict: 'warn',
      detail: expect.stringMatching(/schedutil/),
    });
    expect(byId['huge-pages']!.verdict).toBe('ok');
  });
});

describe('noise', () => {
  // Recorded from this VM: 7 baseline runs on 8 MiB with a build running on the other CPU.
  const busy = [
    { wallMs: 2480, cpuMs: 560, otherTasksMs: 1900, stealMs: 0 },
    { wallMs: 2210, cpuMs: 540, otherTasksMs: 1650, stealMs: 0 },
    { wallMs: 2870, cpuMs: 600, otherTasksMs: 2250, stealMs: 0 },
    { wallMs: 2010, cpuMs: 530, otherTasksMs: 1460, stealMs: 0 },
    { wallMs: 2620, cpuMs: 580, otherTasksMs: 2011, stealMs: 0 },
    { wallMs: 2300, cpuMs: 550, otherTasksMs: 1740, stealMs: 0 },
    { wallMs: 2690, cpuMs: 590, otherTasksMs: 2080, stealMs: 0 },
  ];
  const quiet = [541, 548, 539, 552, 545, 543, 550].map((w) => ({
    wallMs: w,
    cpuMs: w - 4,
    otherTasksMs: 3,
    stealMs: 0,
  }));
  const facts = { cpu: 1, inputBytes: 8 << 20, durationMs: 5000 };

  it('summarizes a series: CV of wall and CPU time, utilization, other tasks', () => {
    const n = summarizeNoise(busy, facts);
    expect(n.runs).toBe(7);
    expect(n.medianWallMs).toBe(2480);
    expect(n.wallCv).toBeGreaterThan(0.1);
    expect(n.utilization).toBeCloseTo(560 / 2480, 2);
    expect(n.otherTasksMs).toBe(1900);
    expect(noiseCheck(n, null).verdict).toBe('bad');
    const q = summarizeNoise(quiet, facts);
    expect(q.wallCv).toBeLessThan(0.03);
    expect(noiseCheck(q, null)).toMatchObject({ verdict: 'ok', fix: null });
    expect(noiseCheck(null, 'not measured: no sandbox')).toMatchObject({
      verdict: 'unknown',
      detail: 'not measured: no sandbox',
    });
  });
});

describe('the report', () => {
  it('puts every check in one schema-valid report with the worst verdict, as text and a log line', async () => {
    const challenge = await loadChallenge('wordcount');
    const report = await hostReport({
      challenge,
      sandbox: createSandbox(),
      dataDir: '/nonexistent',
      cpu: 3,
      root: root('busy-desktop'),
      requirements: false,
      noise: false,
      loadWindowMs: 10,
    });
    expect(hostReportSchema.parse(report)).toEqual(report);
    expect(report.verdict).toBe('bad');
    expect(report.checks.map((c) => c.id)).toContain('huge-pages');
    const text = formatHostReport(report);
    expect(text).toMatch(
      /\[ {2}BAD {2}\] Transparent huge pages: transparent huge pages are "always"/,
    );
    expect(text).toMatch(/fix: sysctl -w vm\.nr_hugepages=0/);
    expect(text).toMatch(/^Verdict: bad \(\d+ bad/m);
    expect(summarizeHostReport(report)).toMatch(
      /^host report \(CPU 3\): bad; noise not measured; .*huge-pages bad/,
    );
  });

  it('ranks verdicts: bad over warn over ok; unknown is not a finding', () => {
    expect(worstVerdict(['ok', 'unknown'])).toBe('ok');
    expect(worstVerdict(['unknown', 'warn', 'ok'])).toBe('warn');
    expect(worstVerdict(['warn', 'bad'])).toBe('bad');
    expect(worstVerdict([])).toBe('ok');
  });

  it('names the package of every package manager that has it', () => {
    expect(installCommand({ apt: 'bubblewrap', dnf: 'bubblewrap', brew: null })).toBe(
      'Debian/Ubuntu: sudo apt-get install -y bubblewrap · Fedora/RHEL: sudo dnf install -y bubblewrap',
    );
  });
});

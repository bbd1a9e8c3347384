import { describe, expect, it } from 'vitest';
import type { HostFingerprint } from '../../contracts';
import {
  cpuBusyShares,
  hostConditionWarnings,
  hostFingerprint,
  parseCpuList,
  selectedSetting,
} from '../../runner/host/fingerprint';

const quietHost: HostFingerprint = {
  hostname: 'h',
  os: 'Linux',
  kernel: '6.1',
  cpuModel: 'm',
  cpuVendor: 'GenuineIntel',
  cores: 8,
  compiler: 'clang',
  governor: 'performance',
  turbo: 'off',
  sandbox: 'bubblewrap',
  pinnedCpu: 3,
  smtSiblings: [7],
  thp: 'madvise',
  perfVersion: 'perf version 6.1',
  hardwareCounters: true,
  hostDifferences: [],
  devMode: false,
  emulated: false,
};

describe('host fingerprint', () => {
  it('parses kernel CPU lists', () => {
    expect(parseCpuList('0-3,8,10-11\n')).toEqual([0, 1, 2, 3, 8, 10, 11]);
    expect(parseCpuList('5')).toEqual([5]);
    expect(parseCpuList('')).toEqual([]);
  });

  it('reads the selected value of a sysfs choice', () => {
    expect(selectedSetting('always [madvise] never')).toBe('madvise');
    expect(selectedSetting('performance\n')).toBe('performance');
    expect(selectedSetting(null)).toBeNull();
  });

  it('computes per-CPU busy shares between two /proc/stat readings', () => {
    const before = 'cpu  1 1 1 1\ncpu0 100 0 100 800 0 0 0 0\ncpu1 0 0 0 1000 0 0 0 0\n';
    const after = 'cpu  1 1 1 1\ncpu0 150 0 150 900 0 0 0 0\ncpu1 0 0 0 1200 0 0 0 0\n';
    const shares = cpuBusyShares(before, after);
    expect(shares.get(0)).toBeCloseTo(0.5);
    expect(shares.get(1)).toBe(0);
  });

  it('warns about conditions that hurt measurement, and not on a quiet tuned host', () => {
    expect(hostConditionWarnings(quietHost)).toEqual([]);
    const noisy = hostConditionWarnings(
      { ...quietHost, turbo: 'on', governor: 'powersave', hardwareCounters: false },
      [7],
    );
    expect(noisy.join('\n')).toMatch(/turbo\/boost is on/);
    expect(noisy.join('\n')).toMatch(/governor is "powersave"/);
    expect(noisy.join('\n')).toMatch(/sibling CPU 7/);
    expect(noisy.join('\n')).toMatch(/hardware counters are unsupported/);
  });

  it('describes this host for real, pinned CPU included', async () => {
    const host = await hostFingerprint({ cxx: 'clang++', sandbox: 'bubblewrap', cpu: 1 });
    expect(host.cores).toBeGreaterThan(0);
    expect(host.pinnedCpu).toBe(1);
    expect(host.smtSiblings).not.toContain(1);
    expect(host.compiler).toMatch(/clang/);
    expect(['always', 'madvise', 'never', null]).toContain(host.thp);
    expect(typeof host.hardwareCounters).toBe('boolean');
  });
});

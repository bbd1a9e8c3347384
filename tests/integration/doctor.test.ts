// `perfjudge doctor` for real on this machine: every requirement and timing item reported, the
// baseline's noise measured in the sandbox; and with recorded /proc and /sys of a host that differs
// from the manifest's memory conditions, a bad verdict and exit code 1.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { hostReportSchema } from '../../contracts';
import { REPO_ROOT } from '../../lib/core/config/env';

const execFileAsync = promisify(execFile);
const CLI = path.join(REPO_ROOT, 'bin/perfjudge.mjs');

const doctor = (args: string[], env: Record<string, string> = {}) =>
  execFileAsync(process.execPath, [CLI, 'doctor', ...args], {
    cwd: REPO_ROOT,
    maxBuffer: 16 << 20,
    env: { ...process.env, ...env },
  }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({
      code: e.code,
      stdout: e.stdout,
      stderr: e.stderr,
    }),
  );

const EVERY_ITEM = [
  'noise',
  'cpu-load',
  'smt-sibling',
  'governor',
  'turbo',
  'isolated-cpu',
  'perf-event-paranoid',
  'transparent-huge-pages',
  'huge-pages',
  'compiler-linux-intel',
  'emulation-windows-amd',
  'cmake',
  'ninja',
  'sandbox',
  'user-namespaces',
  'perf',
  'valgrind',
];

describe('perfjudge doctor', () => {
  it('--json reports each item, with the noise measured pinned to the judge CPU', async () => {
    const r = await doctor(['--json', '--runs', '3', '--input-size', '2MiB', '--cpu', '1']);
    expect([0, 1], r.stderr).toContain(r.code);
    const report = hostReportSchema.parse(JSON.parse(r.stdout));
    expect(report.checks.map((c) => c.id)).toEqual(EVERY_ITEM);
    expect(r.code).toBe(report.verdict === 'bad' ? 1 : 0);
    // This machine has the tools (npm test installs them) and a working sandbox.
    const byId = Object.fromEntries(report.checks.map((c) => [c.id, c]));
    for (const id of ['compiler-linux-intel', 'cmake', 'ninja', 'sandbox'])
      expect(byId[id]!.verdict, `${id}: ${byId[id]!.detail}`).toBe('ok');
    expect(byId['compiler-linux-intel']!.title).toMatch(/-DNDEBUG/);
    expect(report.noise).toMatchObject({ cpu: 1, runs: 3, inputBytes: 2 << 20 });
    expect(report.noise!.medianWallMs).toBeGreaterThan(0);
    expect(report.noise!.utilization).toBeGreaterThan(0);
    expect(byId.noise!.verdict).not.toBe('unknown');
    for (const c of report.checks)
      if (c.verdict === 'warn' || c.verdict === 'bad') expect(c.fix, c.id).toBeTruthy();
  }, 300_000);

  it('is bad (exit 1) on a host whose memory differs from the manifest, saying how to fix it', async () => {
    const root = path.join(REPO_ROOT, 'tests/fixtures/host/busy-desktop');
    // And with a sandbox that does not work (Docker, its CLI off the PATH): bad, naming the one
    // that does work here.
    const r = await doctor(['--host-root', root, '--cpu', '3', '--no-noise'], {
      PERFJUDGE_SANDBOX: 'docker',
      PATH: '/usr/bin:/bin',
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(
      /\[ {2}BAD {2}\] Transparent huge pages: transparent huge pages are "always", the benchmark definition says "madvise"/,
    );
    expect(r.stdout).toMatch(/fix: sysctl -w vm\.nr_hugepages=0/);
    expect(r.stdout).toMatch(
      /\[unknown\] Run-to-run noise of the baseline: not measured \(--no-noise\)/,
    );
    expect(r.stdout).toMatch(/\[ {2}BAD {2}\] Sandbox \(docker\): .*docker/);
    expect(r.stdout).toMatch(
      /fix: the bubblewrap sandbox works here: set PERFJUDGE_SANDBOX=bubblewrap/,
    );
    expect(r.stdout).toMatch(/^Verdict: bad/m);
  }, 300_000);

  it('exit 2 for bad usage', async () => {
    expect((await doctor(['--runs', 'many'])).code).toBe(2);
    expect((await doctor(['--challenge', 'no-such-challenge'])).code).toBe(2);
  });
});

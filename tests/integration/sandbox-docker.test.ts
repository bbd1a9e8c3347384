// The Docker sandbox: its command line and its static helper always; real containers only where a
// Docker engine runs (the tests that need one are skipped, with the reason, when `docker info` fails).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerSandbox, dockerRunArgs, type SandboxRequest } from '../../runner/sandbox';
import { DENIED_SYSCALLS, UnavailableError } from '../../contracts';
import { helperBinary } from '../../runner/sandbox/helper-binary';
import { normalizeRequest } from '../../runner/sandbox/request';
import { parseHelperReport } from '../../runner/sandbox/run-helper';

const execFileAsync = promisify(execFile);
const NO_ENGINE = 'no Docker engine on this host (docker info fails)';

let engine = false;
let work: string;

beforeAll(async () => {
  engine = await execFileAsync('docker', ['info'], { timeout: 20_000 }).then(
    () => true,
    () => false,
  );
  work = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-docker-test-'));
});

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

function request(overrides: Partial<SandboxRequest>): SandboxRequest {
  return {
    command: 'true',
    args: [],
    workDir: work,
    stdout: 'capture',
    limits: {
      wallTimeMs: 5_000,
      memoryBytes: 256 << 20,
      processes: 32,
      outputBytes: 1 << 20,
      fileBytes: 16 << 20,
    },
    ...overrides,
  };
}

describe('DockerSandbox', () => {
  it('asks Docker for every isolation the security model needs', () => {
    const req = normalizeRequest(
      request({
        cpu: 1,
        readOnly: [{ host: '/srv/input', sandbox: '/input' }],
        env: { FOO: 'bar' },
      }),
    );
    const args = dockerRunArgs(req, {
      name: 'perfjudge-test',
      image: 'img',
      helper: '/cache/helper',
      reportFile: '/tmp/report',
      identity: { uid: 65534, gid: 65534 },
    });
    const line = args.join(' ');
    for (const flag of [
      '--network none',
      `--memory ${256 << 20}`,
      `--memory-swap ${256 << 20}`,
      '--pids-limit 33',
      '--read-only',
      '--user 65534:65534',
      '--cap-drop ALL',
      '--security-opt no-new-privileges',
      '--cpuset-cpus 1',
      `--mount type=bind,src=${work},dst=${work}`,
      '--mount type=bind,src=/srv/input,dst=/input,readonly',
      '--env FOO=bar',
    ]) {
      expect(line).toContain(flag);
    }
    // The helper is the container's init, with the command after it.
    expect(args.slice(args.indexOf('img'))).toEqual([
      'img',
      '--report-file',
      '/run/perfjudge/report',
      '--kill-all',
      '1',
      '--time-limit-ms',
      '5000',
      '--rlimit-fsize',
      String(16 << 20),
      '--cpu',
      '1',
      // The container's init confines the command too: the whole deny list, nothing allowed.
      '--seccomp-deny',
      DENIED_SYSCALLS.join(','),
      '--',
      'true',
    ]);
  });

  it('builds the static helper the containers run, which limits and measures on its own', async () => {
    const helper = await helperBinary({ static: true });
    const report = path.join(work, 'report');
    await writeFile(report, 'junk that must be overwritten '.repeat(20));
    const started = performance.now();
    await execFileAsync(helper, [
      '--report-file',
      report,
      '--time-limit-ms',
      '400',
      '--',
      'sleep',
      '5',
    ]);
    expect(performance.now() - started).toBeLessThan(2_000);
    const parsed = parseHelperReport(await readFile(report, 'utf8'));
    expect(parsed).toMatchObject({
      exited: false,
      termSignal: 9,
      killed: 'time',
      execStarted: true,
    });
    // Outside a container's pid namespace --kill-all would signal the whole host: refused.
    await expect(
      execFileAsync(helper, ['--report-file', report, '--kill-all', '1', '--', 'true']),
    ).rejects.toThrow(/only for pid 1/);
  });

  it('says why it is unavailable when there is no engine', async () => {
    // `false` stands in for a docker CLI whose engine does not answer.
    const noEngine = new DockerSandbox({ docker: 'false' });
    await expect(noEngine.check()).rejects.toThrow(UnavailableError);
    await expect(noEngine.check()).rejects.toThrow(
      /no Docker engine on this host \(docker info fails\)/,
    );
    await expect(new DockerSandbox({ docker: '/nonexistent/docker' }).check()).rejects.toThrow(
      /not installed/,
    );
  });

  it('runs a program in a container, with limits and no network', async (ctx) => {
    ctx.skip(!engine, NO_ENGINE);
    const sandbox = new DockerSandbox();
    await sandbox.check();
    const hello = await sandbox.run(request({ command: 'sh', args: ['-c', 'echo hello; exit 3'] }));
    expect(hello).toMatchObject({ exitCode: 3, limitExceeded: null });
    expect(hello.stdoutSha256).toBe(createHash('sha256').update('hello\n').digest('hex'));
    const sleeper = await sandbox.run(
      request({
        command: 'sleep',
        args: ['100'],
        limits: { ...request({}).limits, wallTimeMs: 500 },
      }),
    );
    expect(sleeper.limitExceeded).toBe('time');
    const net = await sandbox.run(
      request({
        command: 'sh',
        args: ['-c', 'cat /sys/class/net/*/operstate 2>/dev/null | grep -c up'],
      }),
    );
    expect(net.stdout?.toString().trim()).toBe('0');
  });
});

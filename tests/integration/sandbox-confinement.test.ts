// The confinement the sandbox helper applies right before the untrusted command's exec:
// a seccomp filter in every run and every build step, the manifest's allowances, and a fresh
// session keyring whatever the runner had (checked under `keyctl session`, as a systemd service or
// a login shell would give one).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DENIED_SYSCALLS, NEVER_ALLOWED_SYSCALLS } from '../../contracts';
import { sandboxedExecutor } from '../../runner/build/sandboxed-executor';
import { BubblewrapSandbox, type SandboxRequest } from '../../runner/sandbox';
import { helperBinary } from '../../runner/sandbox/helper-binary';
import { normalizeRequest } from '../../runner/sandbox/request';

const execFileAsync = promisify(execFile);
const sandbox = new BubblewrapSandbox();
let work: string;

function request(overrides: Partial<SandboxRequest>): SandboxRequest {
  return {
    command: 'true',
    args: [],
    workDir: work,
    stdout: 'capture',
    limits: {
      wallTimeMs: 10_000,
      memoryBytes: 256 << 20,
      processes: 16,
      outputBytes: 1 << 20,
      fileBytes: 1 << 20,
    },
    ...overrides,
  };
}

/** `sh -c script` in the sandbox; stdout and stderr merged, as the build's executor does. */
async function shell(script: string, extra: Partial<SandboxRequest> = {}) {
  const r = await sandbox.run(
    request({ command: '/bin/sh', args: ['-c', `${script} 2>&1`], ...extra }),
  );
  return { code: r.exitCode, out: r.stdout?.toString('utf8') ?? '' };
}

beforeAll(async () => {
  await sandbox.check();
  work = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-confinement-test-'));
});

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the syscall filter', () => {
  it('is on in every run: one seccomp filter, no_new_privs', async () => {
    const r = await shell('grep -E "^(Seccomp|Seccomp_filters|NoNewPrivs):" /proc/self/status');
    expect(r.out).toMatch(/^Seccomp:\s+2$/m);
    expect(r.out).toMatch(/^NoNewPrivs:\s+1$/m);
  });

  it('is on in the build too (the executor the compiler runs through)', async () => {
    const execute = sandboxedExecutor({
      sandbox,
      workDir: work,
      readOnly: [],
      limits: {
        buildSeconds: 10,
        testRunSeconds: 1,
        benchmarkRunSeconds: 1,
        memory: 256 << 20,
        outputBytes: 1 << 20,
        patchBytes: 1 << 20,
        fileBytes: 1 << 20,
        processes: 16,
      },
    });
    const r = await execute('/bin/grep', ['^Seccomp:', '/proc/self/status'], {
      cwd: work,
      timeoutMs: 10_000,
    });
    expect(r.output).toMatch(/^Seccomp:\s+2$/m);
  });

  it('makes a denied call fail with EPERM: keyctl, and sched_setaffinity unless allowed', async () => {
    const keys = await shell('keyctl show @s');
    expect(keys.code).not.toBe(0);
    expect(keys.out).toMatch(/Operation not permitted/);
    const pin = await shell('taskset -p -c 0 $$');
    expect(pin.code).not.toBe(0);
    expect(pin.out).toMatch(/Operation not permitted/);
    // A challenge's manifest may allow it (limits.allowSyscalls): then the same call works.
    const allowed = await shell('taskset -p -c 0 $$', { allowSyscalls: ['sched_setaffinity'] });
    expect(allowed.out).not.toMatch(/Operation not permitted/);
    expect(allowed.code).toBe(0);
  });

  it('denies a change of persona (setarch -R turns ASLR off), not the query', async () => {
    // Outside the sandbox setarch -R works here: the sandbox is what stops it.
    await execFileAsync('setarch', ['-R', 'true']);
    const off = await shell('setarch -R true');
    expect(off.code).not.toBe(0);
    expect(off.out).toMatch(/Operation not permitted/);
    // Reading the persona (personality(0xffffffff), what setarch without a flag change does
    // first) works, and it is the default one.
    const persona = await shell('cat /proc/self/personality');
    expect(persona.code, persona.out).toBe(0);
    expect(persona.out.trim()).toBe('00000000');
    const allowed = await shell('setarch -R true', { allowSyscalls: ['personality'] });
    expect(allowed.code, allowed.out).toBe(0);
  });

  it('never lets a request allow the keyring calls, and names what it refused', () => {
    for (const name of NEVER_ALLOWED_SYSCALLS)
      expect(() => normalizeRequest(request({ allowSyscalls: [name] }))).toThrow(
        new RegExp(`${name} is not a syscall a challenge may allow`),
      );
    expect(normalizeRequest(request({})).denySyscalls).toEqual([...DENIED_SYSCALLS]);
    expect(normalizeRequest(request({ allowSyscalls: ['io_uring_setup'] })).denySyscalls).toEqual(
      DENIED_SYSCALLS.filter((n) => n !== 'io_uring_setup'),
    );
  });
});

describe('the session keyring', () => {
  /**
   * Runs the helper itself (outer mode, as a container's init does) under a session keyring that
   * holds a key, confining `keyctl` with a deny list that leaves keyctl out: what it sees is the
   * keyring the helper joined, not the runner's.
   */
  async function keyctlUnderRunnerSession(denyList: string, keyctlArgs: string): Promise<string> {
    const helper = await helperBinary();
    const name = `perfjudge-runner-key-${randomBytes(4).toString('hex')}`;
    const script = [
      `keyctl add user ${name} runner-secret @s >/dev/null`,
      // The runner's session keyring does hold the key: the check below is not vacuous.
      `keyctl search @s user ${name} >/dev/null || { echo "no runner key"; exit 99; }`,
      `exec "$0" --report-fd 3 --seccomp-deny "$1" -- keyctl ${keyctlArgs} 3>/dev/null`,
    ].join('\n');
    const { stdout, stderr } = await execFileAsync(
      'keyctl',
      ['session', '-', 'sh', '-c', script, helper, denyList],
      { timeout: 30_000 },
    ).catch((error: { stdout?: string; stderr?: string }) => ({
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
    }));
    return `${stdout}${stderr}`.replaceAll(name, 'RUNNER_KEY');
  }

  it("is a fresh, empty one, not the runner's (even where keyctl itself were allowed)", async () => {
    const denyAllButKeyctl = DENIED_SYSCALLS.filter((n) => n !== 'keyctl').join(',');
    const shown = await keyctlUnderRunnerSession(denyAllButKeyctl, 'show @s');
    expect(shown).not.toContain('no runner key');
    expect(shown).not.toContain('RUNNER_KEY');
    // The helper's own anonymous session keyring, with nothing in it.
    expect(shown).toMatch(/_ses/);
  });

  it('cannot be reached at all under the full filter', async () => {
    const shown = await keyctlUnderRunnerSession(DENIED_SYSCALLS.join(','), 'show @s');
    expect(shown).toMatch(/Operation not permitted/);
    expect(shown).not.toContain('RUNNER_KEY');
  });
});

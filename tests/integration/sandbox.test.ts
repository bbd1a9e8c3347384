// The bubblewrap sandbox against the real kernel: limits (time, memory, processes, output, file
// size), containment (escaping children, network, host files, environment, ownership) and measurement.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { UnavailableError } from '../../contracts';
import {
  BubblewrapSandbox,
  createSandbox,
  type SandboxLimits,
  type SandboxRequest,
} from '../../runner/sandbox';
import { STAGE_DIR } from '../../runner/sandbox/bubblewrap-sandbox';
import { CgroupManager } from '../../runner/sandbox/cgroups';

const LIMITS: SandboxLimits = {
  wallTimeMs: 5_000,
  memoryBytes: 256 << 20,
  processes: 32,
  outputBytes: 1 << 20,
  fileBytes: 16 << 20,
};

const PROGRAMS: Record<string, string> = {
  'hello.c': `#include <stdio.h>
int main(void) {
  volatile unsigned long x = 0;
  for (unsigned long i = 0; i < 20000000UL; i++) x += i;
  printf("hello sandbox\\n");
  return 3;
}
`,
  'spin.c': `int main(void) { volatile unsigned long x = 0; for (;;) x++; }
`,
  'membomb.c': `#include <stdlib.h>
#include <string.h>
int main(void) {
  for (;;) {
    char *p = malloc(1 << 20);
    if (!p) return 3;
    memset(p, 1, 1 << 20);
  }
}
`,
  'forkbomb.c': `#include <unistd.h>
int main(void) { for (;;) fork(); }
`,
};

const root = process.getuid?.() === 0;
const sandbox = new BubblewrapSandbox();
let work: string;
let nonce: string;

function request(overrides: Partial<SandboxRequest>): SandboxRequest {
  return {
    command: 'true',
    args: [],
    workDir: work,
    stdout: 'capture',
    limits: LIMITS,
    ...overrides,
  };
}

/** Host processes whose command line contains `marker` (the sandbox must leave none behind). */
async function hostProcessesWith(marker: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = (await readFile(`/proc/${entry}/cmdline`, 'utf8')).replaceAll('\0', ' ');
      if (cmdline.includes(marker)) found.push(Number(entry));
    } catch {
      // Exited while we looked.
    }
  }
  return found;
}

beforeAll(async () => {
  await sandbox.check();
  work = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-sandbox-test-'));
  nonce = randomBytes(4).readUInt32BE(0).toString();
  for (const [name, source] of Object.entries(PROGRAMS))
    await writeFile(path.join(work, name), source);
  // Compiled inside the sandbox itself: the toolchain must be usable from there.
  const names = Object.keys(PROGRAMS).map((n) => n.replace(/\.c$/, ''));
  const script = names.map((n) => `cc -O1 -o ${n} ${n}.c`).join(' && ');
  const built = await sandbox.run(
    request({
      command: 'sh',
      args: ['-c', script],
      limits: { ...LIMITS, wallTimeMs: 60_000, memoryBytes: 1 << 30, processes: 64 },
    }),
  );
  expect(built.stderr).toBe('');
  expect(built.exitCode).toBe(0);
});

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('BubblewrapSandbox', () => {
  it('runs a program and measures it from outside', async () => {
    const r = await sandbox.run(request({ command: path.join(work, 'hello') }));
    expect(r.exitCode).toBe(3);
    expect(r.signal).toBeNull();
    expect(r.limitExceeded).toBeNull();
    expect(r.stdout?.toString()).toBe('hello sandbox\n');
    expect(r.stdoutBytes).toBe(14);
    expect(r.stdoutSha256).toBe(createHash('sha256').update('hello sandbox\n').digest('hex'));
    expect(r.wallTimeMs).toBeGreaterThan(0);
    expect(r.wallTimeMs).toBeLessThan(5_000);
    expect(r.userTimeMs + r.sysTimeMs).toBeGreaterThan(1);
    expect(r.maxRssBytes).toBeGreaterThan(256 * 1024);
    expect(r.maxRssBytes).toBeLessThan(64 << 20);
    expect(r.minorFaults).toBeGreaterThan(10);
    expect(r.majorFaults).toBeGreaterThanOrEqual(0);
    expect(r.voluntaryContextSwitches + r.involuntaryContextSwitches).toBeGreaterThan(0);
  });

  it("reports the command's exact status: a signal is not an exit code above 128", async () => {
    const killed = await sandbox.run(request({ command: 'sh', args: ['-c', 'kill -SEGV $$'] }));
    expect(killed).toMatchObject({ exitCode: null, signal: 'SIGSEGV', limitExceeded: null });
    const exited = await sandbox.run(request({ command: 'sh', args: ['-c', 'exit 139'] }));
    expect(exited).toMatchObject({ exitCode: 139, signal: null });
    const missing = await sandbox.run(request({ command: 'no-such-command' }));
    expect(missing.exitCode).toBe(127);
    expect(missing.stderr).toContain('no-such-command');
  });

  it('hashes without keeping, feeds stdinFile, and gives only the environment asked for', async () => {
    const input = path.join(work, 'stdin.txt');
    await writeFile(input, 'from a file\n');
    const r = await sandbox.run(request({ command: 'cat', stdinFile: input, stdout: 'hash' }));
    expect(r.stdout).toBeUndefined();
    expect(r.stdoutBytes).toBe(12);
    expect(r.stdoutSha256).toBe(createHash('sha256').update('from a file\n').digest('hex'));
    const empty = await sandbox.run(request({ command: 'cat' }));
    expect(empty.stdoutBytes).toBe(0);
    const env = await sandbox.run(request({ command: 'env', env: { FOO: 'bar' } }));
    expect(env.stdout?.toString().split('\n').filter(Boolean).sort()).toEqual(
      // PWD is bwrap's, from --chdir.
      ['FOO=bar', `HOME=${work}`, 'LC_ALL=C', 'PATH=/usr/bin:/bin', `PWD=${work}`].sort(),
    );
  });

  it('kills an infinite loop and a sleeper at the time limit', async () => {
    const started = performance.now();
    const spin = await sandbox.run(
      request({ command: path.join(work, 'spin'), limits: { ...LIMITS, wallTimeMs: 600 } }),
    );
    expect(performance.now() - started).toBeLessThan(600 + 1_500);
    expect(spin.limitExceeded).toBe('time');
    expect(spin.signal).toBe('SIGKILL');
    expect(spin.wallTimeMs).toBeGreaterThanOrEqual(600);
    expect(spin.wallTimeMs).toBeLessThan(600 + 1_000);
    // Killed by the sandbox's init, which reaps it: its CPU time is still accounted.
    expect(spin.userTimeMs).toBeGreaterThan(50);

    const t0 = performance.now();
    const sleeper = await sandbox.run(
      request({ command: 'sleep', args: ['100'], limits: { ...LIMITS, wallTimeMs: 500 } }),
    );
    expect(performance.now() - t0).toBeLessThan(500 + 1_500);
    expect(sleeper.limitExceeded).toBe('time');
  });

  it('leaves no double-forked, setsid child behind (when the command ends, and at a timeout)', async () => {
    const marker = `987.${nonce}1`;
    const escape = `(setsid sh -c "sleep ${marker} & exec sleep ${marker}" &); sleep 0.2`;
    const ended = await sandbox.run(request({ command: 'sh', args: ['-c', `${escape}; exit 0`] }));
    expect(ended.exitCode).toBe(0);
    expect(await hostProcessesWith(marker)).toEqual([]);

    const timedOut = await sandbox.run(
      request({
        command: 'sh',
        args: ['-c', `${escape}; sleep 100`],
        limits: { ...LIMITS, wallTimeMs: 700 },
      }),
    );
    expect(timedOut.limitExceeded).toBe('time');
    expect(await hostProcessesWith(marker)).toEqual([]);
  });

  it('stops a memory bomb as a memory limit, and the host is fine', async () => {
    const r = await sandbox.run(
      request({
        command: path.join(work, 'membomb'),
        limits: { ...LIMITS, memoryBytes: 64 << 20 },
      }),
    );
    expect(r.limitExceeded).toBe('memory');
    expect(r.exitCode).not.toBe(0);
    // With a memory cgroup the kernel's OOM killer ends it; with RLIMIT_AS, its failed malloc does.
    if ((await sandbox.limitSupport()).memory) expect(r.signal).toBe('SIGKILL');
    expect(r.maxRssBytes).toBeLessThanOrEqual(70 << 20);
  });

  it('contains a fork bomb', async () => {
    const bomb = path.join(work, 'forkbomb');
    const r = await sandbox.run(
      request({ command: bomb, limits: { ...LIMITS, processes: 16, wallTimeMs: 1_000 } }),
    );
    const support = await sandbox.limitSupport();
    expect(r.limitExceeded).toBe(support.pids ? 'processes' : 'time');
    expect(await hostProcessesWith(bomb)).toEqual([]);
  });

  it('stops an output flood at the limit, keeping no more than the limit', async () => {
    const limit = 100_000;
    const expected = Buffer.from('y\n'.repeat(limit / 2));
    const r = await sandbox.run(
      request({ command: 'yes', limits: { ...LIMITS, outputBytes: limit } }),
    );
    expect(r.limitExceeded).toBe('output');
    expect(r.stdout?.length).toBe(limit);
    expect(r.stdout?.equals(expected)).toBe(true);
    expect(r.stdoutBytes).toBeGreaterThan(limit);
    const hashed = await sandbox.run(
      request({ command: 'yes', stdout: 'hash', limits: { ...LIMITS, outputBytes: limit } }),
    );
    expect(hashed.limitExceeded).toBe('output');
    expect(hashed.stdoutSha256).toBe(createHash('sha256').update(expected).digest('hex'));
  });

  it('stops a file past the file size limit', async () => {
    const r = await sandbox.run(
      request({
        command: 'dd',
        args: ['if=/dev/zero', `of=${path.join(work, 'big')}`, 'bs=65536', 'count=64'],
        limits: { ...LIMITS, fileBytes: 1 << 20 },
      }),
    );
    expect(r.signal).toBe('SIGXFSZ');
    expect(r.limitExceeded).toBe('file-size');
    expect((await stat(path.join(work, 'big'))).size).toBeLessThanOrEqual(1 << 20);
  });

  it('has no network, not even to services on the host loopback', async () => {
    const server = net.createServer((socket) => {
      socket.on('error', () => undefined);
      socket.end('hello\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      // The listener is really there: from the host, it answers.
      await new Promise<void>((resolve, reject) => {
        const c = net.connect(port, '127.0.0.1', () => {
          c.destroy();
          resolve();
        });
        c.on('error', reject);
      });
      const probe = [port, 5432, 6379]
        .map(
          (p) =>
            `if (exec 3<>/dev/tcp/127.0.0.1/${p}) 2>/dev/null; then echo open ${p}; else echo closed ${p}; fi`,
        )
        .join('; ');
      const r = await sandbox.run(request({ command: 'bash', args: ['-c', probe] }));
      expect(r.stdout?.toString()).toBe(`closed ${port}\nclosed 5432\nclosed 6379\n`);
    } finally {
      server.close();
    }
  });

  it("sees none of the host's secrets: files, processes, the runner's environment", async () => {
    const secret = `s3cret-${randomBytes(8).toString('hex')}`;
    vi.stubEnv('PERFJUDGE_SANDBOX_TEST_SECRET', secret);
    try {
      const paths = [
        '/etc/shadow',
        '/etc/passwd',
        '/root',
        '/home',
        '/work',
        '/var',
        '/run/postgresql',
        '/srv',
        '/sys',
        '/boot',
        '/opt',
      ];
      const script = [
        `for p in ${paths.join(' ')}; do if [ -e "$p" ]; then echo "visible $p"; fi; done`,
        'cat /proc/self/environ /proc/1/environ 2>/dev/null | tr "\\0" "\\n"',
        'echo pids $(ls /proc | grep -c "^[0-9]")',
      ].join('; ');
      const r = await sandbox.run(request({ command: 'sh', args: ['-c', script] }));
      const out = r.stdout?.toString() ?? '';
      expect(out).not.toContain('visible');
      expect(out).not.toContain(secret);
      expect(out).not.toContain('PERFJUDGE_SANDBOX_TEST_SECRET');
      // Only the sandbox's own processes: init, sh, ls, grep.
      const pids = Number(/pids (\d+)/.exec(out)?.[1]);
      expect(pids).toBeGreaterThan(0);
      expect(pids).toBeLessThanOrEqual(5);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('writes nowhere but workDir (and its private /tmp); read-only mounts stay read-only', async () => {
    const input = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-sandbox-ro-'));
    try {
      await writeFile(path.join(input, 'data.txt'), 'input\n');
      await chmod(input, 0o755);
      const escapee = `/tmp/perfjudge-escape-${nonce}`;
      const targets = ['/usr/x', '/x', '/etc/x', '/proc/x', '/input/x', '/input/data.txt'];
      const script = [
        ...targets.map((t) => `(echo > ${t}) 2>/dev/null && echo "wrote ${t}"`),
        `echo private > ${escapee} && echo "tmp ok"`,
        `echo mine > ${work}/mine.txt && echo "work ok"`,
        'cat /input/data.txt',
        'id -u',
      ].join('; ');
      const r = await sandbox.run(
        request({
          command: 'sh',
          args: ['-c', script],
          readOnly: [{ host: input, sandbox: '/input' }],
        }),
      );
      const out = r.stdout?.toString() ?? '';
      expect(out).not.toContain('wrote');
      expect(out).toContain('tmp ok\nwork ok\ninput\n');
      expect(existsSync(escapee)).toBe(false);
      expect(await readFile(path.join(input, 'data.txt'), 'utf8')).toBe('input\n');
      // The untrusted code is not root on the host, and neither are the files it makes.
      const owner = (await stat(path.join(work, 'mine.txt'))).uid;
      const inside = Number(out.trim().split('\n').pop());
      if (root) {
        expect(owner).toBe(65534);
        expect(inside).toBe(65534);
      } else {
        expect(owner).toBe(process.getuid?.());
      }
      expect(owner).not.toBe(0);
    } finally {
      await rm(input, { recursive: true, force: true });
    }
  });

  // As root the code runs as uid 65534, which cannot enter a 0700 home (where the packaged CLI keeps
  // its data and challenges): the sandbox must not need it to.
  it.runIf(root)(
    'mounts a work dir and a file from inside a 0700 folder, leaving the host mounts as they were',
    async () => {
      const home = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-sandbox-home-'));
      try {
        expect((await stat(home)).mode & 0o777).toBe(0o700);
        const data = path.join(home, '.cache', 'input.txt');
        await mkdir(path.dirname(data), { recursive: true });
        await writeFile(data, 'from a private home\n');
        const workDir = path.join(home, 'work');
        await mkdir(workDir);
        const r = await sandbox.run(
          request({
            command: 'sh',
            args: ['-c', `cat ${data} && echo written > ${workDir}/out.txt`],
            workDir,
            readOnly: [{ host: data, sandbox: data }],
          }),
        );
        expect(r.stderr).toBe('');
        expect(r.stdout?.toString()).toBe('from a private home\n');
        expect(r.exitCode).toBe(0);
        expect(await readFile(path.join(workDir, 'out.txt'), 'utf8')).toBe('written\n');
        // The stage lives in the run's own mount namespace only.
        expect(await readFile('/proc/self/mountinfo', 'utf8')).not.toContain(STAGE_DIR);
      } finally {
        await rm(home, { recursive: true, force: true });
      }
    },
  );

  it('pins the tree to the requested CPU', async () => {
    const cpu = os.cpus().length - 1;
    const r = await sandbox.run(
      request({
        command: 'sh',
        args: [
          '-c',
          'taskset -cp 0-63 $$ >/dev/null 2>&1; grep Cpus_allowed_list /proc/self/status',
        ],
        cpu,
      }),
    );
    const support = await sandbox.limitSupport();
    // With a cpuset cgroup the pin holds even against the code's own sched_setaffinity.
    if (support.cpuset) expect(r.stdout?.toString()).toBe(`Cpus_allowed_list:\t${cpu}\n`);
    else expect(r.stdout?.toString()).toMatch(/^Cpus_allowed_list:/);
    const plain = await sandbox.run(
      request({ command: 'grep', args: ['Cpus_allowed_list', '/proc/self/status'], cpu }),
    );
    expect(plain.stdout?.toString()).toBe(`Cpus_allowed_list:\t${cpu}\n`);
  });

  it('kills the tree and rejects with an AbortError when aborted', async () => {
    const marker = `986.${nonce}2`;
    const controller = new AbortController();
    const started = performance.now();
    let seenWhileRunning: number[] = [];
    setTimeout(() => {
      // The scan does find the sandbox's processes while they live: its empty result later means something.
      void hostProcessesWith(marker).then((pids) => {
        seenWhileRunning = pids;
        controller.abort();
      });
    }, 300);
    const run = sandbox.run(
      request({
        command: 'sh',
        args: ['-c', `sleep ${marker} & sleep ${marker}`],
        signal: controller.signal,
      }),
    );
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(seenWhileRunning.length).toBeGreaterThanOrEqual(2);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(await hostProcessesWith(marker)).toEqual([]);
    await expect(sandbox.run(request({ signal: AbortSignal.abort() }))).rejects.toMatchObject({
      name: 'AbortError',
    });
  });

  it('takes the sandbox down with it when the runner side dies', async () => {
    const marker = `985.${nonce}3`;
    const run = sandbox.run(
      request({ command: 'sh', args: ['-c', `(setsid sleep ${marker} &); sleep ${marker}`] }),
    );
    let helper: number | undefined;
    for (let i = 0; i < 50 && helper === undefined; i++) {
      await new Promise((r) => setTimeout(r, 50));
      for (const pid of await hostProcessesWith(marker)) {
        const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        if (ppid === process.pid) helper = pid;
      }
    }
    expect(helper).toBeDefined();
    // As if the runner crashed: the helper goes without a word to anyone.
    process.kill(helper as number, 'SIGKILL');
    await expect(run).rejects.toBeInstanceOf(UnavailableError);
    await new Promise((r) => setTimeout(r, 200));
    expect(await hostProcessesWith(marker)).toEqual([]);
  });

  it('fails a set-up it cannot do as a platform fault, not as the program failing', async () => {
    await expect(
      sandbox.run(
        request({ readOnly: [{ host: path.join(work, 'does-not-exist'), sandbox: '/input' }] }),
      ),
    ).rejects.toBeInstanceOf(UnavailableError);
    if (root) {
      // A mount source the sandbox user could not read is named up front.
      const secret = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-sandbox-private-'));
      try {
        await expect(
          sandbox.run(request({ readOnly: [{ host: secret, sandbox: '/input' }] })),
        ).rejects.toThrow(/cannot read/);
      } finally {
        await rm(secret, { recursive: true, force: true });
      }
    }
    await expect(sandbox.run(request({ workDir: 'relative/dir' }))).rejects.toThrow(/absolute/);
  });

  it('with rlimits only (hosts without cgroups), still stops a memory bomb and contains a fork bomb', async () => {
    const fallback = new BubblewrapSandbox({ limitMechanism: 'rlimit' });
    const mem = await fallback.run(
      request({
        command: path.join(work, 'membomb'),
        limits: { ...LIMITS, memoryBytes: 64 << 20 },
      }),
    );
    expect(mem.limitExceeded).toBe('memory');
    const bomb = path.join(work, 'forkbomb');
    const fork = await fallback.run(
      request({ command: bomb, limits: { ...LIMITS, processes: 16, wallTimeMs: 800 } }),
    );
    expect(fork.limitExceeded).toBe('time');
    expect(await hostProcessesWith(bomb)).toEqual([]);
  });

  it('cleans up its cgroups', async () => {
    const manager = new CgroupManager();
    const support = await manager.probe();
    const leftovers: string[] = [];
    for (const base of manager.baseDirs()) {
      for (const entry of await readdir(base)) {
        if (entry.startsWith(`perfjudge-sandbox-${process.pid}-`))
          leftovers.push(path.join(base, entry));
      }
    }
    expect(leftovers).toEqual([]);
    // On this project's hosts (root, cgroup v1) the cgroup path is the one in use.
    if (root && existsSync('/sys/fs/cgroup/memory/memory.limit_in_bytes')) {
      expect(support).toMatchObject({ memory: true, pids: true });
    }
  });

  it('is what createSandbox gives by default', async () => {
    expect(createSandbox().kind).toBe('bubblewrap');
    expect(createSandbox('docker').kind).toBe('docker');
    await mkdir(path.join(work, 'sub'), { recursive: true });
    const r = await createSandbox().run(request({ command: 'pwd', cwd: path.join(work, 'sub') }));
    expect(r.stdout?.toString()).toBe(`${path.join(work, 'sub')}\n`);
  });
});

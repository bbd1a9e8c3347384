// Where the sandbox cannot work, `perfjudge judge` refuses (never judging unsandboxed) and names the
// failing requirement with the command `perfjudge doctor` gives for it:
// - user namespaces disabled: root maps itself into a fresh user namespace and sets
//   user.max_user_namespaces to 0 there (the host's own setting is untouched), then runs the CLI;
// - root without CAP_SYS_ADMIN (a container's), its data in a 0700 folder: the sandbox user cannot
//   enter it and the judge cannot mount it for them; the refusal says what to change.
// Both need root (to write the namespace's id maps, and to drop a capability), as CI runs; as
// another user there is nothing to set up, so they do not run.
import { execFile, spawn } from 'node:child_process';
import { existsSync, readlinkSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lib/core/config/env';

const CLI = path.join(REPO_ROOT, 'bin/perfjudge.mjs');
const PATCH = path.join(
  REPO_ROOT,
  'challenges/wordcount/submissions/accepted/fast-hash-table.patch',
);
const ROOT = process.getuid?.() === 0;
const NO_USERNS = 'user namespaces are disabled';
const NO_USERNS_FIX = 'sysctl -w user.max_user_namespaces=15000';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-refusal-'));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Ran {
  code: number | null;
  output: string;
}

const cliEnv = (): NodeJS.ProcessEnv => ({
  ...process.env,
  HOME: dir,
  PERFJUDGE_DATA_DIR: path.join(dir, 'data'),
  PERFJUDGE_HOST_LOCK: path.join(dir, 'judging.lock'),
});

/** The CLI in a user namespace of its own whose user.max_user_namespaces is 0. */
async function withoutUserNamespaces(args: string[]): Promise<Ran> {
  const go = path.join(dir, `go-${Date.now()}`);
  // Waits until the parent has mapped root into the namespace, then execs (regaining root's
  // capabilities there), lowers the limit and runs the CLI.
  const script =
    'while [ ! -e "$GO" ]; do sleep 0.05; done; ' +
    `exec sh -c 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"' sh "$@"`;
  const child = spawn(
    'unshare',
    ['--user', 'sh', '-c', script, 'sh', process.execPath, CLI, ...args],
    {
      cwd: REPO_ROOT,
      env: { ...cliEnv(), GO: go },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const mine = readlinkSync('/proc/self/ns/user');
  while (existsSync(`/proc/${child.pid}`) && readlinkSync(`/proc/${child.pid}/ns/user`) === mine)
    await sleep(20);
  await writeFile(`/proc/${child.pid}/uid_map`, '0 0 4294967295');
  await writeFile(`/proc/${child.pid}/gid_map`, '0 0 4294967295');
  await writeFile(go, '');
  return { code: await exited, output };
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve) =>
    execFile(command, args, { cwd: REPO_ROOT, env, maxBuffer: 16 << 20 }, (error, stdout, stderr) =>
      resolve({
        code: error ? (typeof error.code === 'number' ? error.code : -1) : 0,
        output: `${stdout}${stderr}`,
      }),
    ),
  );
}

describe.runIf(ROOT)('where the sandbox cannot work', () => {
  it("judge refuses, naming the disabled user namespaces with doctor's fix", async () => {
    const judged = await withoutUserNamespaces(['judge', '--patch', PATCH, '--no-host-lock']);
    expect(judged.output).toContain(`this machine cannot judge: ${NO_USERNS}: ${NO_USERNS_FIX}`);
    expect(judged.output).toContain('never unsandboxed');
    expect(judged.code).toBe(2);
    const doctor = await withoutUserNamespaces(['doctor', '--no-noise']);
    // Both lines give the judge's command, not "install bubblewrap" (it is installed).
    expect(doctor.output).toMatch(
      new RegExp(
        `Sandbox \\(bubblewrap\\): ${NO_USERNS}.*\\n\\s+fix: ${NO_USERNS_FIX.replace(/\./g, '\\.')}\\n`,
      ),
    );
    expect(doctor.output).toMatch(
      new RegExp(
        `User namespaces: ${NO_USERNS}.*\\n\\s+fix: ${NO_USERNS_FIX.replace(/\./g, '\\.')}\\n`,
      ),
    );
  }, 300_000);

  it('root without CAP_SYS_ADMIN says how to let the sandbox user reach a 0700 data folder', async () => {
    const home = path.join(dir, 'home');
    await mkdir(home, { mode: 0o700 });
    const judged = await run(
      'setpriv',
      [
        '--bounding-set=-sys_admin',
        '--inh-caps=-sys_admin',
        process.execPath,
        CLI,
        'judge',
        '--patch',
        PATCH,
        '--no-host-lock',
        '--input-size',
        '1MiB',
        '--public-size',
        '256KiB',
        '--runs',
        '1',
        '--quiet',
      ],
      { ...cliEnv(), PERFJUDGE_DATA_DIR: path.join(home, 'data') },
    );
    expect(judged.output).toMatch(/^JUDGE_ERROR/m);
    expect(judged.output).toContain(`${home} is not searchable by it`);
    expect(judged.output).toContain('no CAP_SYS_ADMIN');
    expect(judged.output).toContain(`chmod o+x ${home}`);
    // The advice names root's real data folder, not the name the judge shows for its own.
    expect(judged.output).toContain("root's data is under /var/cache");
    expect(judged.code).toBe(2);
  }, 600_000);
});

// The challenge page's downloads: the contestant kit unpacks with the system's tar and unzip into
// one folder holding the template (at its root), the judge's harness byte for byte, every edge case
// with its expected output and the public input; as downloaded it builds with CMake, check.cmake
// passes and time.cmake prints a ratio, both saying the solution is still the baseline; check
// fails with the first differing lines for a wrong solution; `git diff` in the kit is a patch intake accepts unchanged; and the same kit builds with
// MinGW-w64 and checks under Wine. Every other challenge folder's kit builds, checks and times as
// downloaded too. A small public input keeps it quick (any input works: the kit compares the
// solution with the baseline on it).
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEdgeCases } from '../../lib/core/challenge/edge-cases';
import { loadChallenge, type Challenge } from '../../lib/core/challenge/load-manifest';
import { REPO_ROOT } from '../../lib/core/config/env';
import { kitArchive, PUBLIC_INPUT_FILE, solutionFile } from '../../lib/server/kit/contestant-kit';
import { contestantWorkflow } from '../../lib/server/kit/workflow';
import { intakePatch } from '../../runner/intake';
import { ensureInput, type GeneratedInput } from '../../lib/core/challenge/inputs';
import { MINGW_TOOLCHAIN_FILE } from '../../runner/windows/mingw-toolchain';

const execFileAsync = promisify(execFile);
const SERVER = 'https://contest.example.org';
const SUBMISSIONS = path.join(REPO_ROOT, 'challenges/wordcount/submissions');

let dir: string;
let challenge: Challenge;
let input: GeneratedInput;

function has(command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore', timeout: 60_000 });
    return true;
  } catch {
    return false;
  }
}
const HAS_WINE = has('wine', ['--version']) && has('x86_64-w64-mingw32-g++-posix', ['--version']);

async function listTree(root: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(path.join(root, prefix), { withFileTypes: true })) {
    const rel = path.posix.join(prefix, e.name);
    if (e.isDirectory()) out.push(...(await listTree(root, rel)));
    else out.push(rel);
  }
  return out.sort();
}

/** Runs a command; its exit code and everything it printed (cmake's messages go to stderr). */
async function run(
  command: string,
  args: string[],
  cwd: string,
): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(command, args, {
      cwd,
      maxBuffer: 64 << 20,
      env: { ...process.env, CXX: '' },
    });
    return { code: 0, output: `${stdout}${stderr}` };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, output: `${e.stdout}${e.stderr}` };
  }
}

const git = (cwd: string, ...args: string[]) =>
  run('git', ['-c', 'user.email=c@example.com', '-c', 'user.name=contestant', ...args], cwd);

async function unpackTarGz(name: string): Promise<string> {
  const built = await kitArchive(challenge, 'tar.gz', {
    server: SERVER,
    publicInput: { path: input.path, sha256: input.sha256 },
    dataDir: path.join(dir, 'data'),
  });
  const out = path.join(dir, name);
  await mkdir(out, { recursive: true });
  execFileSync('tar', ['xzf', built.path, '-C', out]);
  return path.join(out, 'wordcount');
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-downloads-'));
  challenge = await loadChallenge('wordcount');
  input = await ensureInput(
    challenge,
    { seed: 'kit-test', sizeBytes: 256 * 1024, rareSeparators: false },
    path.join(dir, 'data'),
  );
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the kit archives', () => {
  it('the .tar.gz holds the template at its root, the harness, the tests, the input and the scripts', async () => {
    const kit = await unpackTarGz('tgz');
    const files = await listTree(kit);
    const template = await listTree(challenge.templateDir);
    for (const f of template) {
      expect(await readFile(path.join(kit, f))).toEqual(
        await readFile(path.join(challenge.templateDir, f)),
      );
      expect(await readFile(path.join(kit, 'kit/baseline', f))).toEqual(
        await readFile(path.join(challenge.templateDir, f)),
      );
    }
    for (const f of await listTree(challenge.harnessDir))
      expect(await readFile(path.join(kit, 'harness', f))).toEqual(
        await readFile(path.join(challenge.harnessDir, f)),
      );
    const cases = await loadEdgeCases(challenge);
    expect(files.filter((f) => f.endsWith('.in'))).toHaveLength(cases.length);
    for (const c of cases)
      expect(await readFile(path.join(kit, `tests/${c.group}/${c.name}.expected`))).toEqual(
        c.expected,
      );
    expect(await readFile(path.join(kit, PUBLIC_INPUT_FILE))).toEqual(await readFile(input.path));
    for (const f of ['CMakeLists.txt', 'check.cmake', 'time.cmake', 'README.md', '.gitignore'])
      expect(files).toContain(f);
    // The README opens with the one workflow, the platform's URL filled in.
    const readme = await readFile(path.join(kit, 'README.md'), 'utf8');
    for (const step of contestantWorkflow({ slug: 'wordcount', server: SERVER }))
      for (const command of step.commands) expect(readme).toContain(command);
    expect(readme).toContain('perfjudge doctor');
  }, 300_000);

  it('the .zip holds the same files, and the same kit gives the same bytes twice', async () => {
    const options = {
      server: SERVER,
      publicInput: { path: input.path, sha256: input.sha256 },
    };
    const first = await kitArchive(challenge, 'zip', { ...options, dataDir: path.join(dir, 'z1') });
    const second = await kitArchive(challenge, 'zip', {
      ...options,
      dataDir: path.join(dir, 'z2'),
    });
    const bytes = await readFile(first.path);
    expect(bytes.equals(await readFile(second.path))).toBe(true);
    expect(bytes.subarray(0, 2).toString('latin1')).toBe('PK');
    const out = path.join(dir, 'zip');
    await mkdir(out);
    // Python's zipfile: unzip is not a dependency of the project.
    execFileSync('python3', ['-m', 'zipfile', '-e', first.path, out]);
    expect(await listTree(out)).toEqual(await listTree(path.join(dir, 'tgz')));
  });
});

describe('working in the kit', () => {
  let kit: string;

  beforeAll(async () => {
    kit = await unpackTarGz('work');
    expect((await git(kit, 'init', '-q')).code).toBe(0);
    await git(kit, 'add', '-A');
    expect((await git(kit, 'commit', '-qm', 'kit')).code).toBe(0);
  }, 60_000);

  it('a fresh kit builds, checks and times as downloaded, saying the solution is the baseline', async () => {
    const build = await run('cmake', ['-B', 'build', '-G', 'Ninja'], kit);
    expect(build.code, build.output).toBe(0);
    const built = await run('cmake', ['--build', 'build'], kit);
    expect(built.code, built.output).toBe(0);
    const baseline = await run('cmake', ['-DPROGRAM=baseline', '-P', 'check.cmake'], kit);
    expect(baseline.output).toContain('check passed');
    expect(baseline.code, baseline.output).toBe(0);
    const check = await run('cmake', ['-P', 'check.cmake'], kit);
    expect(check.output).toMatch(/edge cases: (\d+) of \1 pass/);
    expect(check.output).toContain('public input: the same output as the baseline');
    expect(check.output).toContain('check passed');
    expect(check.output).toContain('your solution is still the baseline: edit wordcount.cpp');
    expect(check.code).toBe(0);
    // The kit's README shows exactly this output.
    const readme = await readFile(path.join(kit, 'README.md'), 'utf8');
    expect(readme).toContain(`$ cmake -P check.cmake\n${check.output.trim()}\n`);

    const time = await run('cmake', ['-DRUNS=3', '-P', 'time.cmake'], kit);
    expect(time.code, time.output).toBe(0);
    expect(time.output).toMatch(
      /pair 3: baseline \d+\.\d{3} s, solution \d+\.\d{3} s, ratio \d+\.\d{3}/,
    );
    expect(time.output).toMatch(/speedup \d+\.\d{3}x \(median of 3 pairwise ratios/);
    expect(time.output).toContain('your solution is still the baseline: edit wordcount.cpp');
  }, 300_000);

  it('a changed solution checks without the baseline note', async () => {
    await git(kit, 'apply', path.join(SUBMISSIONS, 'accepted/baseline-twice.patch'));
    const check = await run('cmake', ['-P', 'check.cmake'], kit);
    expect(check.output).toContain('check passed');
    expect(check.output).not.toContain('still the baseline');
    expect(check.code).toBe(0);
    await git(kit, 'checkout', '-q', '.');
  }, 300_000);

  it('check fails a wrong solution, naming each failing case with its first differing lines', async () => {
    await git(kit, 'checkout', '-q', '.');
    await git(kit, 'apply', path.join(SUBMISSIONS, 'wrong_answer/sizes-uint16-counts.patch'));
    const check = await run('cmake', ['-P', 'check.cmake'], kit);
    expect(check.code).not.toBe(0);
    expect(check.output).toContain('sizes/counts-above-65535 fails');
    expect(check.output).toMatch(/first difference at line 1, byte \d+/);
    expect(check.output).toMatch(
      /expected: "d\\t70000" \(7 bytes\)\n\s+got: {6}"c\\t65535" \(7 bytes\)/,
    );
    expect(check.output).toContain('check failed');
    await git(kit, 'checkout', '-q', '.');
  }, 300_000);

  it('git diff in the kit is a patch intake accepts unchanged, touching only the edited files', async () => {
    // A contestant's edit and a new header in a sub-folder.
    await git(kit, 'apply', path.join(SUBMISSIONS, 'accepted/fast-hash-table.patch'));
    await mkdir(path.join(kit, 'detail'), { recursive: true });
    await cp(path.join(kit, 'wordcount.hpp'), path.join(kit, 'detail/copy.hpp'));
    await git(kit, 'add', '-A');
    const { output: patch } = await git(kit, 'diff', '--cached');
    const intake = await intakePatch({
      patchText: patch,
      challenge,
      destDir: path.join(dir, 'intake'),
    });
    expect(intake.ok, JSON.stringify(intake)).toBe(true);
    if (intake.ok)
      expect(intake.files.map((f) => f.path).sort()).toEqual(['detail/copy.hpp', 'wordcount.cpp']);
    // The build folder and the patch itself stay out of it (.gitignore).
    expect(patch).not.toContain('build/');
  });

  it.runIf(HAS_WINE)(
    'the same kit builds with MinGW-w64 and checks under Wine (the Windows path, emulated)',
    async () => {
      await git(kit, 'checkout', '-q', '.');
      const configure = await run(
        'cmake',
        [
          '-B',
          'build-mingw',
          `-DCMAKE_TOOLCHAIN_FILE=${MINGW_TOOLCHAIN_FILE}`,
          '-DCMAKE_CROSSCOMPILING_EMULATOR=wine',
        ],
        kit,
      );
      expect(configure.code, configure.output).toBe(0);
      expect(configure.output).toContain('kit: GNU');
      // Every Wine start costs seconds here: the binary cases (byte 0x1a, which a text-mode read on
      // Windows stops at, NUL bytes, invalid UTF-8) and the public input.
      const check = await run(
        'cmake',
        ['-DBUILD=build-mingw', '-DONLY=^binary/', '-P', 'check.cmake'],
        kit,
      );
      expect(check.output).toMatch(/edge cases: (\d+) of \1 pass/);
      expect(check.output).toContain('public input: the same output as the baseline');
      expect(check.output).toContain('check passed');
      expect(check.code).toBe(0);
    },
    600_000,
  );
});

// Every other challenge folder's kit as downloaded (wordcount's is above): it builds, checks and
// times before the contestant changes anything, and names the file to edit.
const OTHER_CHALLENGES = readdirSync(path.join(REPO_ROOT, 'challenges'), { withFileTypes: true })
  .filter((e) => e.isDirectory() && e.name !== 'wordcount')
  .filter((e) => existsSync(path.join(REPO_ROOT, 'challenges', e.name, 'manifest.yaml')))
  .map((e) => e.name);

describe.each(OTHER_CHALLENGES)("%s's kit as downloaded", (slug) => {
  it('builds, checks and times, saying the solution is still the baseline', async () => {
    const other = await loadChallenge(slug);
    const own = await ensureInput(
      other,
      { seed: 'kit-test', sizeBytes: 256 * 1024, rareSeparators: false },
      path.join(dir, 'data'),
    );
    const built = await kitArchive(other, 'tar.gz', {
      server: SERVER,
      publicInput: { path: own.path, sha256: own.sha256 },
      dataDir: path.join(dir, 'data'),
    });
    const out = path.join(dir, `kit-${slug}`);
    await mkdir(out, { recursive: true });
    execFileSync('tar', ['xzf', built.path, '-C', out]);
    const kit = path.join(out, slug);
    const note = `your solution is still the baseline: edit ${await solutionFile(other)}`;
    const configure = await run('cmake', ['-B', 'build', '-G', 'Ninja'], kit);
    expect(configure.code, configure.output).toBe(0);
    const build = await run('cmake', ['--build', 'build'], kit);
    expect(build.code, build.output).toBe(0);
    const check = await run('cmake', ['-P', 'check.cmake'], kit);
    expect(check.output).toMatch(/edge cases: (\d+) of \1 pass/);
    expect(check.output).toContain('check passed');
    expect(check.output).toContain(note);
    expect(check.code, check.output).toBe(0);
    const readme = await readFile(path.join(kit, 'README.md'), 'utf8');
    expect(readme).toContain(`$ cmake -P check.cmake\n${check.output.trim()}\n`);
    const time = await run('cmake', ['-DRUNS=1', '-P', 'time.cmake'], kit);
    expect(time.code, time.output).toBe(0);
    expect(time.output).toMatch(/speedup \d+\.\d{3}x \(median of 1 pairwise ratios/);
    expect(time.output).toContain(note);
  }, 300_000);
});

// `perfjudge run` end to end: the real CLI builds (cached under .data/builds) and runs wordcount.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const CLI = path.join(REPO, 'bin', 'perfjudge.mjs');
const FIXTURE_TREES = path.join(REPO, 'tests', 'fixtures', 'trees');

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function perfjudge(...args: string[]): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd: REPO, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

let tmp: string;
let input: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-run-test-'));
  input = path.join(tmp, 'input.txt');
  await writeFile(input, 'b a b\tc\nZ a\u00a0b b\n');
});

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('perfjudge run', () => {
  it('builds the baseline and prints its output on stdout, progress on stderr', async () => {
    const ran = await perfjudge('run', 'wordcount', '--input', input);
    expect(ran.stderr).toMatch(/perfjudge: .*baseline of wordcount for linux-intel/);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toBe('b\t3\nZ\t1\na\t1\na\u00a0b\t1\nc\t1\n');
  });

  it('builds a working copy given by --tree with -DSOLUTION', async () => {
    const tree = path.join(FIXTURE_TREES, 'custom-container');
    const ran = await perfjudge('run', 'wordcount', '--input', input, '--tree', tree);
    expect(ran.stderr).toContain(`solution in ${tree}`);
    expect(ran.stderr).toContain('-DSOLUTION');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toBe('b\t3\nZ\t1\na\t1\na\u00a0b\t1\nc\t1\n');
  });

  it('prints the compiler output and exits 1 when the tree does not compile', async () => {
    const tree = path.join(FIXTURE_TREES, 'compile-error');
    const ran = await perfjudge('run', 'wordcount', '--input', input, '--tree', tree);
    expect(ran.code).toBe(1);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toContain("error: use of undeclared identifier 'countTheWordsOf'");
    expect(ran.stderr).toContain('perfjudge: build failed');
  });

  it('exits 2 with a clear message for a missing input file', async () => {
    const missing = path.join(tmp, 'missing.txt');
    const ran = await perfjudge('run', 'wordcount', '--input', missing);
    expect(ran.code).toBe(2);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toBe(`perfjudge: input file not found: ${missing}\n`);
  });

  it('exits 2 for an unknown challenge, a missing --input or an unknown target', async () => {
    const unknown = await perfjudge('run', 'no-such-challenge', '--input', input);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown challenge "no-such-challenge"');

    const noInput = await perfjudge('run', 'wordcount');
    expect(noInput.code).toBe(2);
    expect(noInput.stderr).toContain("required option '-i, --input <file>' not specified");

    const badTarget = await perfjudge('run', 'wordcount', '--input', input, '--target', 'x');
    expect(badTarget.code).toBe(2);
    expect(badTarget.stderr).toContain('Allowed choices are linux-intel, windows-amd');
  });

  it('describes every option in --help', async () => {
    const ran = await perfjudge('run', '--help');
    expect(ran.code).toBe(0);
    for (const option of [
      '--input <file>',
      '--tree <dir>',
      '--target <target>',
      '--cache-dir <dir>',
    ])
      expect(ran.stdout).toContain(option);
    expect(ran.stdout).toMatch(/Exit codes: 0 .* 1 .* 2\s/s);
  });
});

// The challenge page's downloads: the template archives unpack with the system's tar and unzip into
// one folder holding exactly the template and the README, and the public input is the test stage's.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadChallenge, type Challenge } from '../../lib/challenge/load-manifest';
import { archiveName, templateArchive } from '../../lib/web/challenge-files';

let dir: string;
let challenge: Challenge;

async function save(stream: ReadableStream<Uint8Array>, file: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of Readable.fromWeb(stream as never)) chunks.push(Buffer.from(chunk));
  const bytes = Buffer.concat(chunks);
  await writeFile(file, bytes);
  return bytes;
}

async function listTree(root: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(path.join(root, prefix), { withFileTypes: true })) {
    const rel = path.posix.join(prefix, e.name);
    if (e.isDirectory()) out.push(...(await listTree(root, rel)));
    else out.push(rel);
  }
  return out.sort();
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-downloads-'));
  challenge = await loadChallenge('wordcount');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('template archives', () => {
  const expected = ['README.md', 'init.cpp', 'wordcount.cpp', 'wordcount.hpp'].map(
    (f) => `wordcount/${f}`,
  );

  it('the .tar.gz is a gzip tarball of the template folder and the README, byte for byte', async () => {
    const file = path.join(dir, archiveName('wordcount', 'tar.gz'));
    const bytes = await save(await templateArchive(challenge, 'tar.gz'), file);
    expect(bytes.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    const out = path.join(dir, 'tgz');
    execFileSync('mkdir', ['-p', out]);
    execFileSync('tar', ['xzf', file, '-C', out]);
    expect(await listTree(out)).toEqual(expected);
    expect(await readFile(path.join(out, 'wordcount/wordcount.cpp'), 'utf8')).toBe(
      await readFile(path.join(challenge.templateDir, 'wordcount.cpp'), 'utf8'),
    );
  });

  it('the .zip holds the same files, and the same template gives the same bytes twice', async () => {
    const file = path.join(dir, archiveName('wordcount', 'zip'));
    const first = await save(await templateArchive(challenge, 'zip'), file);
    const second = await save(await templateArchive(challenge, 'zip'), `${file}.again`);
    expect(first.equals(second)).toBe(true);
    expect(first.subarray(0, 2).toString('latin1')).toBe('PK');
    const out = path.join(dir, 'zip');
    execFileSync('mkdir', ['-p', out]);
    // Python's zipfile: unzip is not a dependency of the project.
    execFileSync('python3', ['-m', 'zipfile', '-e', file, out]);
    expect(await listTree(out)).toEqual(expected);
  });
});

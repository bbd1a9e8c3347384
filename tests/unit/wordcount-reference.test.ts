// The TypeScript wordcount reference: exact bytes, chunk boundaries, streaming memory, CLI.
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  referenceOutput,
  referenceOutputSha256,
  referenceWordcount,
  writeReferenceOutput,
} from '../../challenges/wordcount/reference/wordcount-reference';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const REFERENCE_MODULE = path.join(ROOT, 'challenges/wordcount/reference/wordcount-reference.ts');
const MiB = 1024 * 1024;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'perfjudge-reference-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let fileCounter = 0;
async function inputFile(content: Buffer | string): Promise<string> {
  const file = path.join(dir, `input-${fileCounter++}.in`);
  await writeFile(file, content);
  return file;
}

const bytes = (...parts: (string | number[])[]): Buffer =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

describe('reference wordcount', () => {
  it('prints word<TAB>count<LF>, count descending then word ascending', async () => {
    const file = await inputFile('the cat\tthe\r\ndog the cat a');
    expect((await referenceOutput(file)).toString()).toBe('the\t3\ncat\t2\na\t1\ndog\t1\n');
    expect(await referenceWordcount(file)).toEqual([
      { word: 'the', count: 3 },
      { word: 'cat', count: 2 },
      { word: 'a', count: 1 },
      { word: 'dog', count: 1 },
    ]);
  });

  it('splits on exactly the six separators, and orders bytes as unsigned', async () => {
    const file = await inputFile(
      bytes('a b\tc\nd\ve\ff\rg ', [0x61, 0x1c, 0x62, 0x20, 0xff, 0x20, 0x7f, 0x20, 0x00], ' é'),
    );
    expect(await referenceOutput(file)).toEqual(
      bytes(
        [0x00],
        '\t1\na\t1\n',
        [0x61, 0x1c, 0x62],
        '\t1\nb\t1\nc\t1\nd\t1\ne\t1\nf\t1\ng\t1\n',
        [0x7f],
        '\t1\né\t1\n',
        [0xff],
        '\t1\n',
      ),
    );
  });

  it('gives empty output for the empty file and a whitespace-only file', async () => {
    const empty = await inputFile('');
    expect(await referenceWordcount(empty)).toEqual([]);
    expect((await referenceOutput(empty)).length).toBe(0);
    expect(await referenceOutputSha256(empty)).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    expect(await referenceWordcount(await inputFile(' \t\r\n\v\f  \n'))).toEqual([]);
  });

  it('gives the same output whatever the chunk size, with words and \\r\\n across boundaries', async () => {
    const text = bytes(
      '  alpha beta\r\ngamma ',
      'x'.repeat(300),
      ' alpha\r\n\r\nbeta ',
      [0xc3, 0xa9, 0x00, 0xff],
      '\tgamma\vgamma\f',
      'x'.repeat(300),
      '\nlast',
    );
    const file = await inputFile(text);
    const expected = bytes(
      'gamma\t3\nalpha\t2\nbeta\t2\n',
      'x'.repeat(300),
      '\t2\nlast\t1\n',
      [0xc3, 0xa9, 0x00, 0xff],
      '\t1\n',
    );
    for (const chunkSize of [1, 2, 3, 5, 7, 13, 64, 299, 300, 301, text.length, 1 << 16])
      expect(await referenceOutput(file, { chunkSize }), `chunkSize ${chunkSize}`).toEqual(
        expected,
      );
  });

  it('counts a word many chunks long, and one ending exactly at a chunk boundary', async () => {
    const file = await inputFile(
      bytes('y'.repeat(64), ' ', 'z'.repeat(10_000), ' ', 'y'.repeat(64)),
    );
    const entries = await referenceWordcount(file, { chunkSize: 64 });
    expect(entries).toEqual([
      { word: 'y'.repeat(64), count: 2 },
      { word: 'z'.repeat(10_000), count: 1 },
    ]);
  });

  it('hashes and writes exactly the bytes of the output', async () => {
    const words = Array.from({ length: 5000 }, (_, i) => `w${i % 1237}`).join(' ');
    const file = await inputFile(words);
    const output = await referenceOutput(file);
    expect(output.toString().split('\n')[0]).toBe('w0\t5');
    expect(await referenceOutputSha256(file)).toBe(
      createHash('sha256').update(output).digest('hex'),
    );
    const received: Buffer[] = [];
    const sink = new Writable({
      highWaterMark: 16,
      write(chunk: Buffer, _encoding, callback) {
        received.push(chunk);
        setImmediate(callback);
      },
    });
    await writeReferenceOutput(file, sink);
    expect(Buffer.concat(received)).toEqual(output);
  });

  it('rejects a chunk size that is not a positive integer', async () => {
    const file = await inputFile('a');
    await expect(referenceWordcount(file, { chunkSize: 0 })).rejects.toThrow(/chunkSize/);
  });
});

/** Peak RSS growth (MiB) of a fresh process while it counts `file`, after a warm-up on a tiny file. */
async function rssGrowthMiB(file: string, warmup: string): Promise<number> {
  const script = `
    const { referenceWordcount } = await import(${JSON.stringify(REFERENCE_MODULE)});
    await referenceWordcount(${JSON.stringify(warmup)});
    const before = process.resourceUsage().maxRSS;
    await referenceWordcount(${JSON.stringify(file)});
    console.log((process.resourceUsage().maxRSS - before) / 1024);
  `;
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script],
    { cwd: ROOT },
  );
  return Number(stdout.trim());
}

describe('reference wordcount is streaming', () => {
  it('uses memory independent of the file size, and about the size of a long word', async () => {
    const warmup = await inputFile('a b c');
    const shortWords = Buffer.alloc(32 * MiB);
    const vocabulary = ['alpha ', 'beta\n', 'gamma ', 'delta\t', 'é '];
    for (let offset = 0, i = 0; offset < shortWords.length; i++)
      offset += shortWords.write(vocabulary[i % vocabulary.length]!, offset);
    const manyWords = await inputFile(shortWords);
    const longWord = await inputFile(Buffer.alloc(16 * MiB, 'x'));

    // Reading the whole file would grow by at least its 32 MiB; measured about 0-8 MiB.
    expect(await rssGrowthMiB(manyWords, warmup)).toBeLessThan(16);
    // The word itself is 16 MiB; measured 18-21 MiB. Copies per chunk would show as a multiple.
    expect(await rssGrowthMiB(longWord, warmup)).toBeLessThan(2 * 16 + 8);
  });
});

describe('perfjudge reference', () => {
  const cli = (...args: string[]) =>
    run(process.execPath, [path.join(ROOT, 'bin/perfjudge.mjs'), 'reference', ...args], {
      cwd: ROOT,
      encoding: 'buffer',
    });

  it('prints the reference output as raw bytes', async () => {
    const file = await inputFile(bytes('b a\r\nb', [0x00, 0xff], ' b'));
    const { stdout } = await cli('wordcount', file);
    expect(stdout).toEqual(bytes('b\t2\na\t1\nb', [0x00, 0xff], '\t1\n'));
  });

  it('exits 0 quietly when the reader stops early (| head)', async () => {
    const words = Array.from({ length: 40_000 }, (_, i) => `word${i}`).join('\n');
    const file = await inputFile(words);
    const child = spawn(
      process.execPath,
      [path.join(ROOT, 'bin/perfjudge.mjs'), 'reference', 'wordcount', file],
      { cwd: ROOT },
    );
    let stderr = '';
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    const first = await new Promise<Buffer>((resolve) => child.stdout.once('data', resolve));
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(first.toString()).toMatch(/^word0\t1\n/);
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('exits 2 with a clear message when the input is missing', async () => {
    const missing = path.join(dir, 'no-such-file.in');
    await expect(cli('wordcount', missing)).rejects.toMatchObject({
      code: 2,
      stderr: Buffer.from(`perfjudge: input file not found: ${missing}\n`),
    });
  });
});

// The wordcount edge-case suite and its loader; the hand-written expectations and the reference check each other.
import { InvalidChallengeError } from '../../contracts';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceOutput } from '../../challenges/wordcount/reference/wordcount-reference';
import {
  loadEdgeCases,
  materializeEdgeCases,
  parseEdgeCase,
  type EdgeCase,
  type MaterializedEdgeCase,
} from '../../lib/core/challenge/edge-cases';
import { loadChallenge, type Challenge } from '../../lib/core/challenge/load-manifest';

/** Byte equality with a readable failure: the lines around the first difference (toEqual is slow on MiBs). */
function expectSameBytes(actual: Buffer, expected: Buffer, label: string): void {
  if (actual.equals(expected)) return;
  let at = 0;
  while (at < actual.length && at < expected.length && actual[at] === expected[at]) at++;
  const from = at === 0 ? 0 : actual.lastIndexOf(0x0a, at - 1) + 1;
  const around = (b: Buffer) => JSON.stringify(b.subarray(from, from + 300).toString('latin1'));
  expect(around(actual), `${label}: outputs differ from byte ${at} on`).toBe(around(expected));
  expect(actual.length, `${label}: output length`).toBe(expected.length);
}

let dir: string;
let challenge: Challenge;
let cases: EdgeCase[];
let written: MaterializedEdgeCase[];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'perfjudge-edge-cases-'));
  challenge = await loadChallenge('wordcount');
  cases = await loadEdgeCases(challenge);
  written = await materializeEdgeCases(cases, path.join(dir, 'suite'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('wordcount edge-case suite', () => {
  it('has at least 20 cases, and every manifest group has some', () => {
    expect(cases.length).toBeGreaterThanOrEqual(20);
    for (const group of challenge.manifest.tests.groups)
      expect(cases.filter((c) => c.group === group.id).length, `group ${group.id}`).toBeGreaterThan(
        0,
      );
    expect(cases.every((c) => c.required)).toBe(true);
  });

  it('covers what the contract singles out', () => {
    const byName = new Map(cases.map((c) => [`${c.group}/${c.name}`, c]));
    expect(byName.get('whitespace/empty-file')?.input.length).toBe(0);
    expect(byName.get('whitespace/empty-file')?.expected.length).toBe(0);
    expect(byName.get('sizes/one-mib-word')?.input.length).toBeGreaterThanOrEqual(1024 * 1024);
    expect(byName.get('sizes/counts-above-65535')?.expected.toString()).toContain('\t65537\n');
    expect(byName.get('binary/nul-inside-words')?.input.includes(0)).toBe(true);
    // Raw NEL byte 0x85 and U+0085 (c2 85) both stay inside words.
    const nel = byName.get('separators/next-line-not-separator');
    expect(nel?.expected.includes(Buffer.from([0x78, 0x85, 0x79]))).toBe(true);
    expect(nel?.expected.includes(Buffer.from([0x78, 0xc2, 0x85, 0x79]))).toBe(true);
  });

  // The expected outputs are written by hand; the reference is written from the contract. Agreement
  // on every case is the check on both. A small chunk size makes every case cross chunk boundaries.
  it('matches the reference implementation on every case', async () => {
    for (const edgeCase of written) {
      const label = `${edgeCase.group}/${edgeCase.name}`;
      expectSameBytes(await referenceOutput(edgeCase.inputPath), edgeCase.expected, label);
      const chunkSize = edgeCase.input.length < 64 * 1024 ? 3 : 4093;
      expectSameBytes(
        await referenceOutput(edgeCase.inputPath, { chunkSize }),
        edgeCase.expected,
        `${label} (chunk size ${chunkSize})`,
      );
    }
  });

  it('materializes <group>/<name>.in and .expected with the exact bytes', async () => {
    const nul = written.find((c) => c.name === 'nul-inside-words')!;
    expect(nul.inputPath).toBe(path.join(dir, 'suite', 'binary', 'nul-inside-words.in'));
    expect(nul.expectedPath).toBe(path.join(dir, 'suite', 'binary', 'nul-inside-words.expected'));
    expect(await readFile(nul.inputPath)).toEqual(nul.input);
    expect(await readFile(nul.expectedPath)).toEqual(
      Buffer.from('\x00\t2\na\x00b\t2\n\x00\x00\t1\na\t1\na\x00\t1\n', 'latin1'),
    );
  });
});

describe('edge-case format', () => {
  const parse = (text: string) => parseEdgeCase(text, 'group/case.yaml');

  it('concatenates text (UTF-8), hex and repeated segments', () => {
    const parsed = parse(
      [
        'description: d',
        'input:',
        '  - text: "a\\tb\\x85 é"',
        '  - hex: "ff 00"',
        '  - repeat: [{ text: "ab" }, { hex: "0a" }]',
        '    times: 3',
        'expected:',
        '  - [ab, 3]',
        '  - [[{ text: "b" }, { hex: "c2 85" }], 1]',
        '  - [{ repeat: { text: "é" }, times: 1 }, 1]',
        '  - [[{ text: "é" }, { hex: "ff 00" }, { text: "ab" }], 1]',
      ].join('\n'),
    );
    // YAML's "\x85" is the code point U+0085, which UTF-8 encodes as c2 85.
    expect(parsed.input.toString('hex')).toBe(
      Buffer.from('a\tb\u0085 é').toString('hex') + 'ff00' + '61620a'.repeat(3),
    );
    expect(parsed.expected).toEqual(
      Buffer.concat([
        Buffer.from('ab\t3\nb\u0085\t1\né\t1\né'),
        Buffer.from([0xff, 0x00]),
        Buffer.from('ab\t1\n'),
      ]),
    );
  });

  it.each([
    [
      'expected: [[1, 2]]',
      /group\/case\.yaml[\s\S]*expected\.0\.0: a word must be a string.*quote/,
    ],
    [
      'input: [{ hex: "fg" }]',
      /group\/case\.yaml[\s\S]*input\.0\.hex: must be pairs of hex digits/,
    ],
    [
      'input: [{ text: a, hex: "00" }]',
      /input\.0: a segment has exactly one of text, hex or repeat/,
    ],
    ['input: [{ repeat: { text: a } }]', /input\.0\.times: required with `repeat`/],
    ['expected: [[[{ text: a }, { hex: "0" }], 1]]', /expected\.0\.0\.1\.hex: must be pairs/],
    ['expected: [[a, 0]]', /expected\.0\.1: /],
    ['expected: [[a]]', /expected\.0: /],
    ['expected: [["a b", 1]]', /expected\.0\.0: word contains separator byte 0x20 at offset 1/],
    ['expected: [[{ text: "" }, 1]]', /expected\.0\.0: a word is never empty/],
    ['expected: [[b, 1], [a, 1]]', /expected\.1: out of order/],
    ['expected: [[a, 1], [b, 2]]', /expected\.1: out of order/],
    ['expected: [[a, 2], [a, 1]]', /expected\.1\.0: word 61 is listed twice/],
    ['input: [{ repeat: { text: ab }, times: 100000000 }]', /input: expands to 200000000 bytes/],
    ['colour: blue', /Unrecognized key: "colour"/],
  ])('rejects %s naming the file and field', (change, message) => {
    const [key] = change.split(':');
    const base: Record<string, string> = {
      description: 'description: d',
      input: 'input: []',
      expected: 'expected: []',
    };
    base[key!] = change;
    const attempt = () => parse(Object.values(base).join('\n'));
    expect(attempt).toThrow(InvalidChallengeError);
    expect(attempt).toThrow(message);
  });

  it('rejects YAML that does not parse, naming the file', () => {
    expect(() => parse('description: [unclosed')).toThrow(/group\/case\.yaml is not valid YAML/);
  });
});

describe('edge-case folders', () => {
  async function fakeChallenge(
    folders: Record<string, Record<string, string>>,
    groupIds: string[],
  ): Promise<Challenge> {
    const testsDir = await mkdtemp(path.join(dir, 'tests-'));
    for (const [folder, files] of Object.entries(folders)) {
      await mkdir(path.join(testsDir, folder));
      for (const [name, text] of Object.entries(files))
        await writeFile(path.join(testsDir, folder, name), text);
    }
    const groups = groupIds.map((id) => ({ id, description: id, required: id !== 'advisory' }));
    return {
      ...challenge,
      testsDir,
      manifest: { ...challenge.manifest, tests: { groups } },
    };
  }
  const okCase = 'description: d\ninput: [{ text: "a a" }]\nexpected: [[a, 2]]\n';

  it('loads groups in manifest order with their required flag', async () => {
    const fake = await fakeChallenge(
      { advisory: { 'z.yaml': okCase }, core: { 'b.yaml': okCase, 'a.yaml': okCase } },
      ['core', 'advisory'],
    );
    const loaded = await loadEdgeCases(fake);
    expect(loaded.map((c) => [c.group, c.name, c.required])).toEqual([
      ['core', 'a', true],
      ['core', 'b', true],
      ['advisory', 'z', false],
    ]);
    expect(loaded[0]!.expected.toString()).toBe('a\t2\n');
  });

  it('reports a folder without a group and a group without a folder', async () => {
    const fake = await fakeChallenge({ core: { 'a.yaml': okCase }, extras: { 'a.yaml': okCase } }, [
      'core',
      'unicode',
    ]);
    const attempt = loadEdgeCases(fake);
    await expect(attempt).rejects.toThrow(/folder "extras" has no group in the manifest/);
    await expect(loadEdgeCases(fake)).rejects.toThrow(/group "unicode" has no folder/);
  });

  it('reports a malformed case with its path and field, and stray or empty folders', async () => {
    const bad = await fakeChallenge(
      {
        core: { 'a.yaml': okCase, 'b.yaml': 'description: d\ninput: [{ hex: "1" }]\nexpected: []' },
      },
      ['core'],
    );
    await expect(loadEdgeCases(bad)).rejects.toThrow(
      new RegExp(`${path.join(bad.testsDir, 'core', 'b.yaml')}:\\n  - input\\.0\\.hex: `),
    );
    const stray = await fakeChallenge({ core: { 'a.yml': okCase } }, ['core']);
    await expect(loadEdgeCases(stray)).rejects.toThrow(/file "a\.yml" \(cases are named/);
    const empty = await fakeChallenge({ core: {} }, ['core']);
    await expect(loadEdgeCases(empty)).rejects.toThrow(/holds no cases/);
  });
});

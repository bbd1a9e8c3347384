// The three sources of truth agree: the hand-written expected outputs, the TypeScript reference
// implementation and the C++ baseline built from the template by the build library.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { code as wordcountCode } from '../../challenges/wordcount/code';
import {
  referenceOutput,
  referenceOutputSha256,
} from '../../challenges/wordcount/reference/wordcount-reference';
import { generateInputFile } from '../../lib/core/challenge/challenge-code';
import { loadEdgeCases, type EdgeCase } from '../../lib/core/challenge/edge-cases';
import { loadChallenge } from '../../lib/core/challenge/load-manifest';
import { cachedBuild } from '../../runner/build';
import { TEST_DATA_DIR } from '../helpers/judging';

const execFileAsync = promisify(execFile);

let baseline: string;
let dir: string;
let cases: EdgeCase[];

beforeAll(async () => {
  const challenge = await loadChallenge('wordcount');
  const built = await cachedBuild({
    challenge,
    sourceDir: challenge.templateDir,
    toolchain: challenge.manifest.targets['linux-intel']!.toolchain,
    solution: false,
    cacheRoot: path.join(TEST_DATA_DIR, 'builds'),
  });
  expect(built.ok, built.log).toBe(true);
  baseline = built.binary!;
  cases = await loadEdgeCases(challenge);
  dir = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-crosscheck-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function runBaseline(input: string): Promise<Buffer> {
  const { stdout } = await execFileAsync(baseline, [input], {
    encoding: 'buffer',
    maxBuffer: 1 << 30,
  });
  return stdout;
}

describe('baseline, reference and hand-written expectations agree', () => {
  it('has at least 20 edge cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(20);
  });

  it('on every edge case', async () => {
    for (const edgeCase of cases) {
      const input = path.join(dir, `${edgeCase.group}-${edgeCase.name}.in`);
      await writeFile(input, edgeCase.input);
      const label = `${edgeCase.group}/${edgeCase.name}`;
      expect((await runBaseline(input)).equals(edgeCase.expected), `baseline on ${label}`).toBe(
        true,
      );
      expect(
        (await referenceOutput(input)).equals(edgeCase.expected),
        `reference on ${label}`,
      ).toBe(true);
    }
  });

  it('on a generated 32 MiB input', async () => {
    const input = path.join(dir, 'generated-32MiB.txt');
    await generateInputFile(wordcountCode, input, { sizeBytes: 32 << 20, seed: 'crosscheck-1' });
    const baselineSha = createHash('sha256')
      .update(await runBaseline(input))
      .digest('hex');
    expect(await referenceOutputSha256(input)).toBe(baselineSha);
  });
});

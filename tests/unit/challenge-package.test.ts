// The challenge package contract (lib/core/challenge/challenge-package.ts): every folder under
// challenges/ keeps it, and a copied wordcount under a new slug fails with each problem named
// before anything is built. Also maxsubarray's own code: its generator and its reference.
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { maxSubarrayInputChunks } from '../../challenges/maxsubarray/generator';
import { main } from '../../cli/main';
import { challengeCode, challengesWithCode } from '../../lib/core/challenge/challenge-code';
import {
  challengePackageProblems,
  checkChallengePackage,
} from '../../lib/core/challenge/challenge-package';
import { loadEdgeCases, parseEdgeCase } from '../../lib/core/challenge/edge-cases';
import {
  CHALLENGES_DIR,
  listChallenges,
  loadChallenge,
} from '../../lib/core/challenge/load-manifest';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'perfjudge-package-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** challenges/wordcount copied to <dir>/<slug>, the manifest's slug changed or not. */
async function copyOfWordcount(slug: string, renameInManifest: boolean): Promise<string> {
  const copy = path.join(dir, slug);
  await cp(path.join(CHALLENGES_DIR, 'wordcount'), copy, { recursive: true });
  if (renameInManifest) {
    const manifest = path.join(copy, 'manifest.yaml');
    await writeFile(
      manifest,
      (await readFile(manifest, 'utf8')).replace(/^slug: wordcount$/m, `slug: ${slug}`),
    );
  }
  return copy;
}

describe('the challenge folders', () => {
  it('each keep the package contract and bring their code, found by the folder', async () => {
    const challenges = await listChallenges();
    expect(challenges.map((c) => c.manifest.slug)).toEqual(['maxsubarray', 'wordcount']);
    for (const challenge of challenges)
      expect(await challengePackageProblems(challenge), challenge.manifest.slug).toEqual([]);
    expect(challengesWithCode()).toEqual(challenges.map((c) => c.manifest.slug));
  });
});

describe('a copy of wordcount under a new slug', () => {
  it('is refused while the manifest still says wordcount, by `perfjudge manifest` too', async () => {
    const copy = await copyOfWordcount('wc2021', false);
    const problem =
      'manifest.yaml says slug "wordcount" but the folder is "wc2021": they must be the same ' +
      '(the web app, the queue and the runners find a challenge by its folder)';
    expect(await challengePackageProblems(await loadChallenge(copy))).toEqual([problem]);

    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      expect(await main(['node', 'perfjudge', 'manifest', copy])).toBe(2);
      expect(stderr.mock.calls.map(([text]) => String(text)).join('')).toContain(problem);
      expect(stdout).not.toHaveBeenCalled();
      expect(await main(['node', 'perfjudge', 'manifest', 'maxsubarray'])).toBe(0);
    } finally {
      stderr.mockRestore();
      stdout.mockRestore();
    }
  });

  it('names the executable and missing or wrong code, then every other gap', async () => {
    const copy = await copyOfWordcount('wc2022', true);
    // The copied code.ts is found by its folder, outside the repository: nothing to register.
    const problems = await challengePackageProblems(await loadChallenge(copy));
    expect(problems).toEqual([
      expect.stringContaining(
        'must build an executable named after the slug: add_executable(wc2022 …) (it builds wordcount)',
      ),
    ]);
    const other = await copyOfWordcount('wc2023', true);
    await writeFile(path.join(other, 'code.ts'), 'export const code = { generatorVersion: 1 };\n');
    const wrong = await challengePackageProblems(await loadChallenge(other));
    expect(wrong[1]).toMatch(/code\.ts must export `code`, a ChallengeCode:\n.*inputChunks/s);
    await rm(path.join(copy, 'code.ts'));
    const missing = await challengePackageProblems(await loadChallenge(copy));
    expect(missing[1]).toContain('no generator or reference implementation for "wc2022"');
    expect(missing[1]).toContain('challenges/wc2022/code.ts');

    await rm(path.join(copy, 'README.md'));
    await rm(path.join(copy, 'template', 'init.cpp'));
    await rm(path.join(copy, 'tests', 'binary'), { recursive: true });
    await cp(path.join(copy, 'submissions', 'accepted'), path.join(copy, 'submissions', 'fast'), {
      recursive: true,
    });
    const more = await challengePackageProblems(await loadChallenge(copy));
    expect(more).toEqual(
      expect.arrayContaining([
        `readme: README.md is not a file in ${copy}`,
        `editableFiles: init.cpp is not in the template (${path.join(copy, 'template')})`,
        expect.stringMatching(/^submissions\/fast\/ is not a verdict folder/),
        expect.stringContaining('group "binary" has no folder'),
      ]),
    );
    await expect(checkChallengePackage(await loadChallenge(copy))).rejects.toThrow(
      /does not hold a complete challenge package:\n {2}- readme/,
    );
  });
});

describe('the edge-case format', () => {
  it('takes exact output bytes, or word-count rows, never both', () => {
    expect(
      parseEdgeCase(
        'description: d\ninput: [{ text: "1\\n" }]\noutput: [{ text: "1 0 1\\n" }]',
        'c.yaml',
      ).expected,
    ).toEqual(Buffer.from('1 0 1\n'));
    expect(() =>
      parseEdgeCase('description: d\ninput: []\noutput: []\nexpected: []', 'c.yaml'),
    ).toThrow(/exactly one of `expected`/);
    expect(() => parseEdgeCase('description: d\ninput: []', 'c.yaml')).toThrow(/exactly one of/);
  });
});

describe('maxsubarray', () => {
  const bytesOf = (sizeBytes: number, seed: string) =>
    Buffer.concat([...maxSubarrayInputChunks({ sizeBytes, seed })]);

  it('generates the same whole lines of integers in range for a seed and size, at most that size', () => {
    const input = bytesOf(300_000, 'pinned');
    expect(input.equals(bytesOf(300_000, 'pinned'))).toBe(true);
    expect(input.equals(bytesOf(300_000, 'other'))).toBe(false);
    expect(input.length).toBeLessThanOrEqual(300_000);
    expect(input.length).toBeGreaterThan(300_000 - 12);
    const lines = input.toString('latin1').split('\n');
    expect(lines.pop()).toBe('');
    for (const line of lines) {
      expect(line).toMatch(/^-?(0|[1-9][0-9]*)$/);
      expect(Math.abs(Number(line))).toBeLessThanOrEqual(1e9);
    }
    // Pinned: a change of the bytes must bump MAXSUBARRAY_GENERATOR_VERSION and the manifest's version.
    expect(createHash('sha256').update(input).digest('hex')).toBe(
      'd89f9bd62cd820d911709f266988dbbbf4f0fa6cfc0a7a16d4c5297fa56ecd8e',
    );
    for (const size of [0, 1, 2, 13]) expect(bytesOf(size, 's').length).toBeLessThanOrEqual(size);
  });

  it("has a reference that gives every edge case's output", async () => {
    const code = await challengeCode('maxsubarray');
    const cases = await loadEdgeCases(await loadChallenge('maxsubarray'));
    expect(cases.length).toBeGreaterThanOrEqual(10);
    for (const edgeCase of cases) {
      const file = path.join(dir, `${edgeCase.group}-${edgeCase.name}.in`);
      await writeFile(file, edgeCase.input);
      expect(await code.referenceOutputSha256(file), `${edgeCase.group}/${edgeCase.name}`).toBe(
        createHash('sha256').update(edgeCase.expected).digest('hex'),
      );
    }
  });
});

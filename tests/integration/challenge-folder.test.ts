// A challenge is a folder: challenges/maxsubarray copied under a new slug into a temporary tree,
// outside the repository, is checked and judged with no edit anywhere else. The judge finds the
// copy's generator and reference (code.ts) by its folder; nothing in lib/ names a challenge.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { challengeCodeFile, hasChallengeCode } from '../../lib/core/challenge/challenge-code';
import { challengePackageProblems } from '../../lib/core/challenge/challenge-package';
import { CHALLENGES_DIR, loadChallenge } from '../../lib/core/challenge/load-manifest';
import { judgeForTest } from '../helpers/judging';

const SLUG = 'maxsubarray-copy';
let root: string;
let copy: string;

/** Replaces `from` in a file of the copy, failing when it is not there (the original changed). */
async function edit(file: string, from: RegExp, to: string): Promise<void> {
  const text = await readFile(path.join(copy, file), 'utf8');
  expect(text, file).toMatch(from);
  await writeFile(path.join(copy, file), text.replace(from, to));
}

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-challenge-folder-'));
  copy = path.join(root, 'challenges', SLUG);
  await cp(path.join(CHALLENGES_DIR, 'maxsubarray'), copy, { recursive: true });
  // What a new challenge's author changes: its slug, and the executable named after it.
  await edit('manifest.yaml', /^slug: maxsubarray$/m, `slug: ${SLUG}`);
  await edit('harness/CMakeLists.txt', /\(maxsubarray /g, `(${SLUG} `);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('a copy of maxsubarray under a new slug, outside the repository', () => {
  it('keeps the package contract, with its code found by the folder', async () => {
    expect(hasChallengeCode(SLUG)).toBe(false); // not in the repository's challenges/
    expect(challengeCodeFile(copy)).toBe(path.join(copy, 'code.ts'));
    const challenge = await loadChallenge(copy);
    expect(challenge.manifest.slug).toBe(SLUG);
    expect(await challengePackageProblems(challenge)).toEqual([]);
  });

  it("is judged: its example patch is ACCEPTED, checked against the copy's reference", async () => {
    const patch = await readFile(
      path.join(copy, 'submissions', 'accepted', 'fast-parse.patch'),
      'utf8',
    );
    // Tiny inputs and two pairs: this shows the folder is enough, not the speedup.
    const result = await judgeForTest(patch, {
      challenge: copy,
      benchmarkBytes: 64 << 10,
      publicBytes: 16 << 10,
      profile: false,
      runPolicy: { warmups: 0, minPairs: 2, maxPairs: 2 },
    });
    expect(result.verdict, result.message).toBe('ACCEPTED');
    expect(result.stages.test?.cases.length).toBeGreaterThan(0);
    expect(result.stages.measure?.inputBytes).toBe(64 << 10);
    expect(result.challenge).toMatchObject({ slug: SLUG });
  });
});

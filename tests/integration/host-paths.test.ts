// No host paths in what a contestant sees (docs/security.md): a build error and a wrong answer judged for
// real show the tree as /judge/src and the run's folder under /judge/work, never the checkout's or
// the runner's scratch folder's absolute paths.
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JudgingResult } from '../../contracts';
import { REPO_ROOT } from '../../lib/core/config/env';
import { judgeForTest, makePatch, solutionSource, TEST_DATA_DIR } from '../helpers/judging';

/** Every string of the result: what the web pages and the API hand a contestant. */
function shown(result: JudgingResult): string {
  const out: string[] = [];
  const visit = (v: unknown) => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === 'object') Object.values(v).forEach(visit);
  };
  visit(result);
  return out.join('\n');
}

function expectNoHostPath(result: JudgingResult): void {
  const text = shown(result);
  for (const hostPath of [REPO_ROOT, TEST_DATA_DIR, path.join(os.tmpdir(), 'perfjudge-judging-')])
    expect(text.includes(hostPath), `${hostPath} is shown`).toBe(false);
}

describe('host paths in a judging', () => {
  it('a build error names the file as /judge/src/…, the harness as /judge/harness', async () => {
    const patch = await readFile(
      path.join(REPO_ROOT, 'challenges/wordcount/submissions/build_error/syntax-error.patch'),
      'utf8',
    );
    const result = await judgeForTest(patch, { publicBytes: null });
    expect(result.verdict).toBe('BUILD_ERROR');
    const log = result.stages.build?.solution.log ?? '';
    expect(log).toMatch(/\/judge\/src\/wordcount\.cpp:\d+:\d+: error/);
    expect(log).toContain('/judge/harness');
    expectNoHostPath(result);
  });

  it("a program that prints where it runs shows the run's folder under /judge/work", async () => {
    const patch = await makePatch({
      'wordcount.cpp': await solutionSource(`#include <unistd.h>
std::vector<WordCount> wordcount(std::string filePath) {
  char cwd[4096];
  std::string here = getcwd(cwd, sizeof cwd) ? cwd : "?";
  return {WordCount{1, here}, WordCount{1, filePath}};
}`),
    });
    const result = await judgeForTest(patch, { publicBytes: null });
    expect(result.verdict).toBe('WRONG_ANSWER');
    const got = (result.stages.test?.cases ?? []).flatMap((c) => c.diff.map((d) => d.got ?? ''));
    expect(
      got.some((line) => /^\/judge\/work\/run-\w+\t1$/.test(line)),
      got.join('\n'),
    ).toBe(true);
    expectNoHostPath(result);
  });
});

// The judge's folders as a contestant sees them: whole path components rewritten, nothing else.
import { describe, expect, it } from 'vitest';
import { judgingHostPaths, scrubHostPaths, scrubText } from '../../runner/judge/host-paths';

const paths = judgingHostPaths({
  srcDir: '/tmp/perfjudge-runner/perfjudge-judging-Ab12/box/src',
  buildDir: '/tmp/perfjudge-runner/perfjudge-judging-Ab12/box/build',
  boxDir: '/tmp/perfjudge-runner/perfjudge-judging-Ab12/box',
  workDir: '/tmp/perfjudge-runner/perfjudge-judging-Ab12',
  harnessDir: '/srv/perfjudge/challenges/wordcount/harness',
  templateDir: '/srv/perfjudge/challenges/wordcount/template',
  challengeDir: '/srv/perfjudge/challenges/wordcount',
  dataDir: '/srv/perfjudge/.data',
  repoRoot: '/srv/perfjudge',
});

describe('scrubText', () => {
  it('names the tree, the harness and the scratch folder neutrally, most specific first', () => {
    const log =
      "/tmp/perfjudge-runner/perfjudge-judging-Ab12/box/src/wordcount.cpp:3:1: error: unknown type name 'x'\n" +
      'In file included from /srv/perfjudge/challenges/wordcount/harness/main.cpp:1:\n' +
      '-- Build files have been written to: /tmp/perfjudge-runner/perfjudge-judging-Ab12/box/build\n' +
      "cannot open '/tmp/perfjudge-runner/perfjudge-judging-Ab12/run-x1/input.txt'\n" +
      '$ cmake -S /srv/perfjudge/challenges/wordcount/harness -B /srv/perfjudge/.data/builds/abc';
    expect(scrubText(log, paths)).toBe(
      "/judge/src/wordcount.cpp:3:1: error: unknown type name 'x'\n" +
        'In file included from /judge/harness/main.cpp:1:\n' +
        '-- Build files have been written to: /judge/build\n' +
        "cannot open '/judge/work/run-x1/input.txt'\n" +
        '$ cmake -S /judge/harness -B /judge/data/builds/abc',
    );
  });

  it('leaves a longer name that merely starts like a host path alone', () => {
    expect(scrubText('/srv/perfjudge2/file and /srv/perfjudge-old', paths)).toBe(
      '/srv/perfjudge2/file and /srv/perfjudge-old',
    );
    expect(scrubText('see /srv/perfjudge.', paths)).toBe('see /srv/perfjudge.');
    expect(scrubText('at /srv/perfjudge, twice: /srv/perfjudge', paths)).toBe(
      'at /judge/perfjudge, twice: /judge/perfjudge',
    );
  });
});

describe('scrubHostPaths', () => {
  it('rewrites every string of a result, however deep, and keeps everything else', () => {
    const result = {
      message: 'build failed: /srv/perfjudge/challenges/wordcount/harness/CMakeLists.txt',
      stages: { build: { log: ['/srv/perfjudge/.data/x'], ok: false, durationMs: 12 } },
      empty: null,
    };
    expect(scrubHostPaths(result, paths)).toEqual({
      message: 'build failed: /judge/harness/CMakeLists.txt',
      stages: { build: { log: ['/judge/data/x'], ok: false, durationMs: 12 } },
      empty: null,
    });
  });
});

// The bench ladder's list (bench/ladder/steps.ts), which `bench judge ladder`, `bench final` and
// `bench duet` iterate: every step has its source (and its header when it declares one), the
// steps go slowest first, and a step's name states its measured speedup (`expected`).
import { access } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  LADDER,
  LADDER_DIR,
  ladderChanges,
  ladderStep,
  ladderStepFor,
} from '../../bench/ladder/steps';

describe('the bench ladder', () => {
  it('has every step’s files, and the changes the step makes to the template', async () => {
    for (const step of LADDER) {
      await access(path.join(LADDER_DIR, `${step.id}.cpp`));
      const changes = await ladderChanges(step.id);
      expect(changes['wordcount.cpp']).toMatch(/#ifdef SOLUTION/);
      expect('wordcount.hpp' in changes).toBe(step.header === true);
    }
  });

  it('goes slowest first, and each name says its measured speedup', () => {
    const expected = LADDER.map((s) => s.expected);
    expect(expected).toEqual([...expected].sort((a, b) => a - b));
    for (const step of LADDER) {
      const named = /^(\d+(?:\.\d+)?)x-/.exec(step.id);
      if (!named) continue; // baseline-copy: 1 by construction
      // The name is the figure rounded to one decimal (1.05 is 1.1x).
      expect(Math.abs(Number(named[1]) - step.expected), step.id).toBeLessThan(0.051);
    }
    // The range a contest sees: from slower than the baseline to 10× and more.
    expect(Math.min(...expected)).toBeLessThan(1);
    expect(Math.max(...expected)).toBeGreaterThanOrEqual(10);
    expect(() => ladderStep('no-such-step')).toThrow(/no ladder step/);
  });

  it('marks the steps a Windows target cannot judge, and only those', async () => {
    for (const step of LADDER) {
      const changes = await ladderChanges(step.id);
      const code = Object.values(changes).join('\n');
      // A header other than the C and C++ standard libraries' (<cstdint>, <vector>…): POSIX,
      // Linux or intrinsics (<sys/mman.h>, <unistd.h>, <immintrin.h>).
      const osHeaders = [...code.matchAll(/#include <([^>]+)>/g)]
        .map((m) => m[1]!)
        .filter((h) => h.includes('.') || h.includes('/'));
      // Text mode: an ifstream opened without std::ios::binary, an fopen mode without "b".
      const textMode =
        /std::ifstream \w+\{filePath\}/.test(code) || /fopen\([^,]+, "r"\)/.test(code);
      const needsPosix = osHeaders.length > 0 || textMode;
      expect(Boolean(step.posixOnly), `${step.id}: ${osHeaders.join(' ')}`).toBe(needsPosix);
    }
    // The cost bench's choice of patch per target: refused with the reason and the steps that fit.
    expect(() => ladderStepFor('2.8x-mmap-flat-table', 'windows-amd', 'windows')).toThrow(
      /cannot be judged on windows-amd \(windows\): it maps the file .*1\.3x-open-addressing, 2\.8x-read-flat-table/,
    );
    expect(ladderStepFor('2.8x-mmap-flat-table', 'linux-intel', 'linux').id).toBe(
      '2.8x-mmap-flat-table',
    );
    const portable = LADDER.filter((s) => !s.posixOnly);
    expect(portable.map((s) => ladderStepFor(s.id, 'windows-amd', 'windows').id)).toEqual(
      portable.map((s) => s.id),
    );
    // The cost bench needs a portable step of at least 2.5× for the Windows target (issue 26).
    expect(Math.max(...portable.map((s) => s.expected))).toBeGreaterThanOrEqual(2.5);
  });
});

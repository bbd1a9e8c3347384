// The manifest's glob patterns, matched as organizers expect them to be.
import { describe, expect, it } from 'vitest';
import { firstMatchingGlob, matchesGlob } from '../../lib/core/intake';

describe('matchesGlob', () => {
  it.each([
    ['wordcount.cpp', '*.cpp', true],
    ['sub/wordcount.cpp', '*.cpp', false],
    ['sub/x.cpp', '**/*.cpp', true],
    ['a/b/c/x.cpp', '**/*.cpp', true],
    ['x.cpp', '**/*.cpp', true],
    ['x.cpp.txt', '**/*.cpp', false],
    ['xcpp', '*.cpp', false],
    ['tests/x', 'tests/**', true],
    ['tests/a/b.cpp', 'tests/**', true],
    ['tests', 'tests/**', true],
    ['testsuite/x', 'tests/**', false],
    ['main.cpp', 'main.cpp', true],
    ['main.cpp', 'main?cpp', true],
    ['main/cpp', 'main?cpp', false],
    ['mainXcpp', 'main.cpp', false],
    ['a/b/CMakeLists.txt', '**/CMakeLists.txt', true],
    ['lib(1)+.hpp', 'lib(1)+.hpp', true],
    ['anything/at/all', '**', true],
  ])('%s against %s: %s', (file, pattern, expected) => {
    expect(matchesGlob(file, pattern)).toBe(expected);
  });

  it('matches case-insensitively only when asked', () => {
    expect(matchesGlob('CMAKELISTS.TXT', 'CMakeLists.txt')).toBe(false);
    expect(matchesGlob('CMAKELISTS.TXT', 'CMakeLists.txt', { caseInsensitive: true })).toBe(true);
  });

  it('names the first pattern that matches', () => {
    expect(firstMatchingGlob('tests/a.cpp', ['main.cpp', 'tests/**', '**/*.cpp'])).toBe('tests/**');
    expect(firstMatchingGlob('a.txt', ['*.cpp'])).toBeUndefined();
  });
});

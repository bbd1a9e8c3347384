// The MSVC → MinGW flag mapping of the emulated windows-amd build (runner/windows/mingw-toolchain.ts).
import { describe, expect, it } from 'vitest';
import { loadChallenge } from '../../lib/core/challenge/load-manifest';
import { mapMsvcFlag, mingwBuild, UnmappableFlagError } from '../../runner/windows/mingw-toolchain';

describe('MSVC flags on MinGW', () => {
  it("maps the wordcount manifest's flags, recording what was used", async () => {
    const { manifest } = await loadChallenge('wordcount');
    const build = mingwBuild(manifest.targets['windows-amd']!.toolchain);
    expect(build.toolchain).toMatchObject({ kind: 'gcc', cxx: 'x86_64-w64-mingw32-g++-posix' });
    expect(build.toolchain.flags).toEqual(
      expect.arrayContaining(['-O2', '-mavx2', '-mfma', '-std=c++17', '-DNDEBUG', '-fexceptions']),
    );
    expect(build.platform.exeSuffix).toBe('.exe');
    expect(build.platform.configureArgs[0]).toMatch(
      /^-DCMAKE_TOOLCHAIN_FILE=.*mingw-w64-x86_64\.cmake$/,
    );
    expect(build.summary).toMatch(/mapped from \/O2 \/Ob3 \/arch:AVX2/);
    expect(build.summary).toMatch(/\/Ob3: GCC has no inlining level 3/);
  });

  it('maps defines and standards, and refuses what it cannot map honestly', () => {
    expect(mapMsvcFlag('/DFOO=1')?.to).toEqual(['-DFOO=1']);
    expect(mapMsvcFlag('-std:c++20')?.to).toEqual(['-std=c++20']);
    expect(mapMsvcFlag('/Zc:__cplusplus')).toBeNull();
    expect(() =>
      mingwBuild({ kind: 'clang-cl', cxx: 'clang-cl', flags: ['/O2', '/Qspectre'] }),
    ).toThrow(UnmappableFlagError);
  });
});

// Builds job-helper.c at the runner's start: with clang-cl on a Windows host, with the MinGW-w64
// cross compiler on Linux for the emulated target (the .exe then runs under Wine like the program).
import { fileURLToPath } from 'node:url';
import { compiledBinary, type HelperBinaryOptions } from '../sandbox/helper-binary';

const SOURCE_PATH = fileURLToPath(new URL('./job-helper.c', import.meta.url));

/** The Windows helper built for the mode the runner is in. */
export function jobHelperBinary(
  mode: 'native' | 'emulated',
  options: HelperBinaryOptions = {},
): Promise<string> {
  if (mode === 'native')
    return compiledBinary(
      {
        source: SOURCE_PATH,
        name: 'job-helper',
        // clang-cl takes MSVC-style options; -o is accepted as clang's own.
        flags: ['/nologo', '/O2', '/W3'],
        compilers: ['clang-cl', 'cl'],
        libs: ['psapi.lib'],
        suffix: '.exe',
      },
      options.cacheDir ? { cacheDir: options.cacheDir } : {},
    );
  return compiledBinary(
    {
      source: SOURCE_PATH,
      name: 'job-helper-mingw',
      // Static: Wine's prefix has no MinGW runtime DLLs; -municode: the entry point is wmain.
      flags: ['-O2', '-Wall', '-municode', '-static'],
      compilers: ['x86_64-w64-mingw32-gcc'],
      libs: ['-lpsapi'],
      suffix: '.exe',
    },
    options.cacheDir ? { cacheDir: options.cacheDir } : {},
  );
}

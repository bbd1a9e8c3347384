// Builds sandbox-helper.c on first use into a cache keyed by the source's hash, so the binary always
// matches the source it was built from and is rebuilt after an edit.
import { UnavailableError } from '../../contracts';
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { env } from '../../lib/core/config/env';

const execFileAsync = promisify(execFile);

const SOURCE_PATH = fileURLToPath(new URL('./sandbox-helper.c', import.meta.url));

/**
 * `<data dir>/bin` (`<repo>/.data/bin` by default): beside the other generated state, ignored by
 * git; the packaged CLI's data dir is the user's cache, as its package folder may not be writable.
 */
function defaultHelperCacheDir(): string {
  return path.join(env().PERFJUDGE_DATA_DIR, 'bin');
}

const COMPILERS = ['cc', 'clang', 'gcc'];
const FLAGS = ['-O2', '-Wall', '-std=gnu11'];

export interface HelperBinaryOptions {
  cacheDir?: string;
  /** A static binary runs in any container image (Docker); the host one links against our libc. */
  static?: boolean;
}

/** A small trusted C program of ours, compiled on first use. */
export interface CompiledBinarySpec {
  /** Absolute path of the C source. */
  source: string;
  /** File-name stem in the cache (`<name>-<hash>`), and what error messages call it. */
  name: string;
  flags: string[];
  /** Compilers to try in order (default: cc, clang, gcc). */
  compilers?: string[];
  /** Arguments after the source (libraries, which a static link needs after it). */
  libs?: string[];
  /** File-name suffix of the binary (`.exe` for a Windows helper). */
  suffix?: string;
  /** Said when no compiler could build it (the packages it needs beyond a compiler). */
  installHint?: string;
}

const building = new Map<string, Promise<string>>();

/**
 * Path of the compiled program, built once per process and once per (source, flags) hash on disk,
 * so the binary always matches its source and is rebuilt after an edit.
 */
export function compiledBinary(
  spec: CompiledBinarySpec,
  options: HelperBinaryOptions = {},
): Promise<string> {
  const cacheDir = options.cacheDir ?? defaultHelperCacheDir();
  const key = `${spec.source}\0${cacheDir}\0${options.static ? 'static' : 'dynamic'}`;
  let pending = building.get(key);
  if (!pending) {
    pending = build(spec, cacheDir, options.static ?? false);
    building.set(key, pending);
    // A failed build (no compiler yet) may succeed later: do not cache the failure.
    pending.catch(() => building.delete(key));
  }
  return pending;
}

/** Path of the compiled sandbox helper. */
export function helperBinary(options: HelperBinaryOptions = {}): Promise<string> {
  return compiledBinary(
    {
      source: SOURCE_PATH,
      name: 'sandbox-helper',
      flags: FLAGS,
      // The syscall filter of every sandboxed run (there is no sandbox without it).
      libs: ['-lseccomp'],
      installHint: 'apt-get install libseccomp-dev (scripts/install-system-deps.sh does)',
    },
    options,
  );
}

async function build(
  spec: CompiledBinarySpec,
  cacheDir: string,
  isStatic: boolean,
): Promise<string> {
  const source = await readFile(spec.source);
  const flags = isStatic ? [...spec.flags, '-static'] : spec.flags;
  const hash = createHash('sha256')
    .update(source)
    .update(flags.join(' '))
    .update((spec.libs ?? []).join(' '))
    .digest('hex')
    .slice(0, 16);
  const target = path.join(
    cacheDir,
    `${spec.name}-${hash}${isStatic ? '-static' : ''}${spec.suffix ?? ''}`,
  );
  if (await isExecutable(target)) return target;

  await mkdir(cacheDir, { recursive: true, mode: 0o755 });
  // Built under a unique name and renamed into place: concurrent first uses never see half a file.
  const temp = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp${spec.suffix ?? ''}`;
  const errors: string[] = [];
  try {
    for (const cc of spec.compilers ?? COMPILERS) {
      try {
        await execFileAsync(cc, [...flags, '-o', temp, spec.source, ...(spec.libs ?? [])], {
          timeout: 60_000,
        });
        await chmod(temp, 0o755);
        await rename(temp, target);
        return target;
      } catch (error) {
        const e = error as NodeJS.ErrnoException & { stderr?: string };
        errors.push(
          `${cc}: ${e.code === 'ENOENT' ? 'not found' : (e.stderr?.trim() ?? e.message)}`,
        );
      }
    }
  } finally {
    await rm(temp, { force: true });
  }
  throw new UnavailableError(
    `cannot build the ${spec.name} (${spec.source}) with a C compiler: ${errors.join('; ')}. ` +
      (spec.installHint
        ? `It needs a C compiler and: ${spec.installHint}.`
        : `Install one (apt-get install gcc${isStatic ? ' libc6-dev' : ''}).`),
  );
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    const s = await stat(file);
    return s.isFile() && (s.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

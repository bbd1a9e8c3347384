// Which of the judge's requirements this machine meets (compiler with the manifest's flags, CMake,
// Ninja, a working sandbox, user namespaces, perf, valgrind, Wine + MinGW-w64 for windows-amd), each
// a check with the install command for apt, dnf and Homebrew when it is missing.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { HostCheck, Manifest, Target } from '../../contracts';
import { emulatedHere } from '../platform';
import { userNamespaceBlocker } from '../sandbox/bubblewrap-sandbox';
import { createSandbox } from '../sandbox/create-sandbox';
import type { Sandbox } from '../sandbox/sandbox';
import { MINGW_CXX, mingwBuild, UnmappableFlagError } from '../windows/mingw-toolchain';
import { wineVersion } from '../windows/wine-prefix';

const execFileAsync = promisify(execFile);

/** Package names per package manager; null where the manager has no such package. */
interface Packages {
  apt: string | null;
  dnf: string | null;
  brew: string | null;
}

/** The install line of every package manager that has the tool. */
export function installCommand(p: Packages): string {
  const lines = [
    p.apt && `Debian/Ubuntu: sudo apt-get install -y ${p.apt}`,
    p.dnf && `Fedora/RHEL: sudo dnf install -y ${p.dnf}`,
    p.brew && `macOS: brew install ${p.brew}`,
  ].filter(Boolean);
  return lines.join(' · ');
}

const PACKAGES = {
  clang: { apt: 'clang', dnf: 'clang', brew: 'llvm' },
  cmake: { apt: 'cmake', dnf: 'cmake', brew: 'cmake' },
  ninja: { apt: 'ninja-build', dnf: 'ninja-build', brew: 'ninja' },
  bwrap: { apt: 'bubblewrap', dnf: 'bubblewrap', brew: null },
  perf: { apt: 'linux-perf (Ubuntu: linux-tools-generic)', dnf: 'perf', brew: null },
  valgrind: { apt: 'valgrind', dnf: 'valgrind', brew: null },
  wine: {
    apt: 'wine wine64 g++-mingw-w64-x86-64',
    dnf: 'wine mingw64-gcc-c++',
    brew: '--cask wine-stable && brew install mingw-w64',
  },
} satisfies Record<string, Packages>;

/** First line of a tool's --version, or null when it does not run. */
async function toolVersion(command: string, args = ['--version']): Promise<string | null> {
  try {
    const { stdout, stderr } = await execFileAsync(command, args, { timeout: 15_000 });
    return (stdout || stderr).split('\n')[0]!.trim() || command;
  } catch {
    return null;
  }
}

function req(
  id: string,
  title: string,
  found: string | null,
  missing: { verdict: 'bad' | 'warn'; detail: string; fix: string },
): HostCheck {
  return found !== null
    ? { id, group: 'requirements', title, verdict: 'ok', detail: found, fix: null }
    : { id, group: 'requirements', title, ...missing };
}

/** Compiles a small program with exactly these flags: the compiler exists and takes them. */
async function compiles(
  cxx: string,
  flags: string[],
  extra: string[] = [],
): Promise<string | null> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-doctor-cc-'));
  const source = path.join(dir, 'probe.cpp');
  try {
    await writeFile(
      source,
      '#include <cassert>\n#include <string>\nint main() { std::string s("x"); assert(s.size() == 1); return 0; }\n',
    );
    await execFileAsync(cxx, [...flags, ...extra, source, '-o', path.join(dir, 'probe')], {
      timeout: 60_000,
    });
    return null;
  } catch (error) {
    const e = error as { code?: string; stderr?: string; message: string };
    if (e.code === 'ENOENT') return `${cxx} is not installed`;
    return (e.stderr ?? e.message).trim().split('\n').slice(0, 3).join(' / ') || 'does not compile';
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function compilerCheck(id: string, target: Target): Promise<HostCheck> {
  const { cxx, flags } = target.toolchain;
  const title = `C++ compiler for ${id} (${cxx} ${flags.join(' ')})`;
  const version = await toolVersion(cxx);
  if (version === null)
    return {
      id: `compiler-${id}`,
      group: 'requirements',
      title,
      verdict: 'bad',
      detail: `${cxx} is not installed`,
      fix: installCommand(PACKAGES.clang),
    };
  const problem = await compiles(cxx, flags);
  return problem === null
    ? {
        id: `compiler-${id}`,
        group: 'requirements',
        title,
        verdict: 'ok',
        detail: `${version}; compiles with the manifest's flags`,
        fix: null,
      }
    : {
        id: `compiler-${id}`,
        group: 'requirements',
        title,
        verdict: 'bad',
        detail: `${version} refuses the manifest's flags: ${problem}`,
        fix: `install a newer ${cxx}: ${installCommand(PACKAGES.clang)}`,
      };
}

/** A Windows target judged here: emulated with MinGW-w64 (the flags mapped) and Wine. */
async function emulationCheck(id: string, target: Target): Promise<HostCheck> {
  const title = `Wine + MinGW-w64 for ${id} (emulated on Linux)`;
  const base = { id: `emulation-${id}`, group: 'requirements' as const, title };
  const wine = await wineVersion();
  let mapped: string[];
  try {
    mapped = mingwBuild(target.toolchain).toolchain.flags;
  } catch (error) {
    if (!(error instanceof UnmappableFlagError)) throw error;
    return {
      ...base,
      verdict: 'bad',
      detail: error.message,
      fix: 'use flags runner/windows/mingw-toolchain.ts can map',
    };
  }
  const mingw = await toolVersion(MINGW_CXX);
  const problem =
    mingw === null
      ? `${MINGW_CXX} is not installed`
      : await compiles(MINGW_CXX, mapped, ['-static']);
  if (wine && problem === null)
    return {
      ...base,
      verdict: 'ok',
      detail: `${wine}; ${mingw} compiles with ${mapped.join(' ')}`,
      fix: null,
    };
  return {
    ...base,
    verdict: 'warn',
    detail:
      [wine ? null : 'Wine is not installed', problem].filter(Boolean).join('; ') +
      `: ${id} cannot be judged on this machine`,
    fix: installCommand(PACKAGES.wine),
  };
}

/** The other mechanism, when the configured one fails: bubblewrap or Docker, either will do. */
async function alternativeSandbox(kind: Sandbox['kind']): Promise<string | null> {
  const other =
    kind === 'bubblewrap'
      ? createSandbox('docker')
      : kind === 'docker'
        ? createSandbox('bubblewrap')
        : null;
  if (!other) return null;
  return other.check().then(
    () => `the ${other.kind} sandbox works here: set PERFJUDGE_SANDBOX=${other.kind}`,
    () => null,
  );
}

async function sandboxCheck(sandbox: Sandbox): Promise<{ check: HostCheck; works: boolean }> {
  const title = `Sandbox (${sandbox.kind})`;
  const base = { id: 'sandbox', group: 'requirements' as const, title };
  try {
    await sandbox.check();
    return {
      check: {
        ...base,
        verdict: 'ok',
        detail: 'works: the judge can run untrusted code here',
        fix: null,
      },
      works: true,
    };
  } catch (error) {
    const message = (error as Error).message;
    // A host setting that blocks user namespaces has its own command (the judge's refusal names it
    // too); installing bubblewrap would not help then.
    const blocker = sandbox.kind === 'bubblewrap' ? await userNamespaceBlocker() : null;
    const fix = blocker
      ? blocker.fix
      : sandbox.kind === 'bubblewrap'
        ? `${installCommand(PACKAGES.bwrap)}; or set PERFJUDGE_SANDBOX=docker where Docker runs. Without a sandbox the judge refuses to judge`
        : 'start the Docker engine and let this user reach it, or use PERFJUDGE_SANDBOX=bubblewrap';
    return {
      check: {
        ...base,
        verdict: 'bad',
        detail: message.slice(0, 1500),
        fix: (await alternativeSandbox(sandbox.kind)) ?? fix,
      },
      works: false,
    };
  }
}

/** Unprivileged user namespaces: what bubblewrap is made of. */
async function userNamespacesCheck(): Promise<HostCheck> {
  const base = { id: 'user-namespaces', group: 'requirements' as const, title: 'User namespaces' };
  try {
    await execFileAsync('unshare', ['--user', '--map-root-user', 'true'], { timeout: 15_000 });
    return { ...base, verdict: 'ok', detail: 'a process can create a user namespace', fix: null };
  } catch (error) {
    const e = error as { code?: string; stderr?: string };
    if (e.code === 'ENOENT')
      return {
        ...base,
        verdict: 'unknown',
        detail: 'unshare (util-linux) is not installed',
        fix: null,
      };
    const refused = `refused: ${(e.stderr ?? '').trim().slice(0, 300) || 'unshare --user failed'}`;
    const blocker = await userNamespaceBlocker();
    return {
      ...base,
      verdict: 'bad',
      detail: blocker ? `${blocker.problem} (${refused})` : refused,
      fix:
        blocker?.fix ??
        'Debian: sudo sysctl -w kernel.unprivileged_userns_clone=1; Ubuntu 23.10+: sudo sysctl -w ' +
          'kernel.apparmor_restrict_unprivileged_userns=0 (or an AppArmor profile allowing userns for /usr/bin/bwrap); ' +
          'in Docker see docker/README.md',
    };
  }
}

export interface RequirementsOptions {
  manifest: Manifest;
  sandbox: Sandbox;
}

/** Every requirement, and whether the sandbox works (the noise probe needs it). */
export async function requirementChecks(
  options: RequirementsOptions,
): Promise<{ checks: HostCheck[]; sandboxWorks: boolean }> {
  const checks: HostCheck[] = [];
  const linuxHost = process.platform === 'linux';
  for (const [id, target] of Object.entries(options.manifest.targets)) {
    if (emulatedHere(target)) checks.push(await emulationCheck(id, target));
    else checks.push(await compilerCheck(id, target));
  }
  const cmake = await toolVersion('cmake');
  const cmakeVersion = /(\d+)\.(\d+)/.exec(cmake ?? '');
  const cmakeOld =
    cmakeVersion !== null && Number(cmakeVersion[1]) * 100 + Number(cmakeVersion[2]) < 316;
  checks.push(
    cmakeOld
      ? {
          id: 'cmake',
          group: 'requirements',
          title: 'CMake 3.16+',
          verdict: 'bad',
          detail: `${cmake}: too old for the harness`,
          fix: installCommand(PACKAGES.cmake),
        }
      : req('cmake', 'CMake 3.16+', cmake, {
          verdict: 'bad',
          detail: 'cmake is not installed',
          fix: installCommand(PACKAGES.cmake),
        }),
  );
  const ninja = await toolVersion('ninja');
  checks.push(
    req('ninja', 'Ninja', ninja && `ninja ${ninja}`, {
      verdict: 'bad',
      detail: 'ninja is not installed',
      fix: installCommand(PACKAGES.ninja),
    }),
  );
  const sandbox = await sandboxCheck(options.sandbox);
  checks.push(sandbox.check);
  if (linuxHost) checks.push(await userNamespacesCheck());
  checks.push(
    req('perf', 'perf (counters, Top-Down)', await toolVersion('perf'), {
      verdict: 'warn',
      detail: 'perf is not installed: counters and Top-Down are reported unsupported',
      fix: installCommand(PACKAGES.perf),
    }),
  );
  checks.push(
    req('valgrind', 'valgrind (deterministic instruction counts)', await toolVersion('valgrind'), {
      verdict: 'warn',
      detail: 'valgrind is not installed: the cachegrind counts are skipped',
      fix: installCommand(PACKAGES.valgrind),
    }),
  );
  return { checks, sandboxWorks: sandbox.works };
}

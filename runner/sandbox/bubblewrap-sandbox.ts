// The Linux sandbox: bubblewrap namespaces around a read-only toolchain, run as an unprivileged host
// user, limited by a per-run cgroup (or rlimits where the host has none) and measured by our helper.
import { UnavailableError } from '../../contracts';
import { execFile } from 'node:child_process';
import { lstat, mkdir, mkdtemp, open, readFile, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { CgroupManager, type CgroupSupport, type RunCgroup } from './cgroups';
import { helperBinary } from './helper-binary';
import { normalizeRequest, type NormalizedRequest } from './request';
import { abortError, decideLimitExceeded, termination, toSandboxResult } from './result';
import { parseHelperReport, requestStreams, runHelper } from './run-helper';
import { type Sandbox, type SandboxRequest, type SandboxResult } from './sandbox';
import { assertReachable, assertReadable, handOverWorkDir, type SandboxIdentity } from './work-dir';

const execFileAsync = promisify(execFile);

/** `nobody`: owns nothing on the host, so the untrusted code can touch nothing but its workDir. */
export const DEFAULT_SANDBOX_IDENTITY: SandboxIdentity = { uid: 65534, gid: 65534 };

/** Where the helper appears inside the sandbox, as its init. */
const INIT_PATH = '/run/sandbox-init';
/** Descriptor numbers the helper's child hands bwrap (see sandbox-helper.c). */
const EXE_FD = 10;
const NOTIFY_FD = 11;
const INFO_FD = 12;
/**
 * As root, bwrap runs as the sandbox user, who may not reach a mount's source (a 0700 home holds
 * the packaged CLI's data and challenges): the helper binds every source at STAGE_DIR/<k> in a
 * private mount namespace, with root's rights, and bwrap mounts those (sandbox-helper.c --stage-dir).
 * The folder stays empty on the host.
 */
export const STAGE_DIR = '/run/perfjudge-sandbox-stage';
/** The helper's MAX_STAGED. */
const MAX_STAGED = 16;
/** bwrap itself and our init inside it count against pids.max too. */
const SANDBOX_OWN_PROCESSES = 2;
/** Namespace and mount set-up normally takes milliseconds; past this the host is in trouble. */
const SETUP_LIMIT_MS = 10_000;

/** The toolchain, read-only: compilers, cmake, ninja and their libraries live under /usr. */
const TOOLCHAIN_DIRS = ['/usr'];
/** On merged-/usr systems these are symlinks into /usr; elsewhere, directories. */
const ROOT_LINKS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
/** The little of /etc compilers need (cc → /etc/alternatives/cc); never /etc as a whole. */
const ETC_ENTRIES = ['/etc/alternatives', '/etc/ld.so.cache'];

export interface BubblewrapSandboxOptions {
  /** The bwrap binary (default: found on /usr/bin, /bin, /usr/local/bin). */
  bwrap?: string;
  /** Where the helper binary is built (default `<repo>/.data/bin`). */
  helperCacheDir?: string;
  /** Host identity for untrusted code when the runner is root (default 65534:65534). */
  identity?: SandboxIdentity;
  /**
   * 'auto': limit memory and processes with a per-run cgroup when the host allows it, else rlimits.
   * 'rlimit': always rlimits (RLIMIT_AS, RLIMIT_NPROC); for hosts without cgroups, and for testing.
   */
  limitMechanism?: 'auto' | 'rlimit';
  /** More read-only toolchain directories (e.g. /opt/llvm), mounted at the same path. */
  extraToolchain?: string[];
}

export interface HostPlan {
  rootLinks: { path: string; target: string | null }[];
}

/** The bwrap command line for one request (exported for tests and for logs). */
function bubblewrapArgs(
  req: NormalizedRequest,
  plan: HostPlan,
  extraToolchain: string[] = [],
  staged = false,
): string[] {
  const args = [
    '--unshare-all', // user, ipc, pid, net, uts, cgroup (when possible)
    '--unshare-user', // required, not just tried: everything below relies on it
    '--disable-userns', // no nested user namespaces: they would hand out capabilities again
    '--die-with-parent',
    '--new-session', // no controlling terminal, so no TIOCSTI into the runner's
    '--as-pid-1', // our helper is the init (it reaps and accounts for the whole tree)
    '--cap-drop',
    'ALL',
    '--hostname',
    'sandbox',
    '--clearenv',
  ];
  for (const [k, v] of Object.entries(req.env)) args.push('--setenv', k, v);
  for (const dir of [...TOOLCHAIN_DIRS, ...extraToolchain]) args.push('--ro-bind', dir, dir);
  for (const link of plan.rootLinks) {
    if (link.target !== null) args.push('--symlink', link.target, link.path);
    else args.push('--ro-bind', link.path, link.path);
  }
  for (const entry of ETC_ENTRIES) args.push('--ro-bind-try', entry, entry);
  args.push('--proc', '/proc', '--dev', '/dev');
  // Private /tmp: its pages count against the memory cgroup; the size caps it without one.
  args.push('--size', String(req.limits.memoryBytes), '--tmpfs', '/tmp');
  const [workDir, ...readOnly] = staged
    ? stagedSources(req).map((_, k) => `${STAGE_DIR}/${k}`)
    : stagedSources(req);
  args.push('--bind', workDir!, req.workDir);
  req.readOnly.forEach((m, i) => args.push('--ro-bind', readOnly[i]!, m.sandbox));
  args.push('--perms', '0555', '--ro-bind-data', String(EXE_FD), INIT_PATH);
  args.push('--remount-ro', '/');
  args.push('--info-fd', String(INFO_FD), '--chdir', req.cwd);
  args.push('--', INIT_PATH, '--inner', String(NOTIFY_FD));
  // Our init confines the command (fresh session keyring, syscall filter) right before its exec.
  args.push('--seccomp-deny', req.denySyscalls.join(','));
  // Our init, not the outer helper, opens the counters: the command is its child, bwrap's is not.
  if (req.counters.length) args.push('--counters', req.counters.join(','));
  args.push('--', req.command, ...req.args);
  return args;
}

/** Every mount's source on the host, in the order of the stage: the work dir, then the read-only ones. */
function stagedSources(req: NormalizedRequest): string[] {
  const sources = [req.workDir, ...req.readOnly.map((m) => m.host)];
  if (sources.length > MAX_STAGED)
    throw new TypeError(
      `invalid sandbox request: at most ${MAX_STAGED - 1} read-only mounts (got ${req.readOnly.length})`,
    );
  return sources;
}

async function planHost(): Promise<HostPlan> {
  const rootLinks: HostPlan['rootLinks'] = [];
  for (const p of ROOT_LINKS) {
    try {
      const s = await lstat(p);
      if (s.isSymbolicLink()) rootLinks.push({ path: p, target: await readlink(p) });
      else if (s.isDirectory()) rootLinks.push({ path: p, target: null });
    } catch {
      // Not on this host.
    }
  }
  return { rootLinks };
}

async function findBwrap(): Promise<string> {
  for (const dir of ['/usr/bin', '/bin', '/usr/local/bin']) {
    const candidate = path.join(dir, 'bwrap');
    try {
      await execFileAsync(candidate, ['--version'], { timeout: 10_000 });
      return candidate;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  throw new UnavailableError(
    'bubblewrap is not installed (bwrap not found): apt-get install bubblewrap',
  );
}

async function readSysctl(file: string): Promise<string | null> {
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    return null;
  }
}

/** A host setting that stops unprivileged user namespaces, and the command that lifts it. */
export interface UsernsBlocker {
  problem: string;
  fix: string;
}

/**
 * Names the host setting that stops unprivileged user namespaces, when one does. The judge's refusal
 * and `perfjudge doctor` both say it, in these words.
 */
export async function userNamespaceBlocker(): Promise<UsernsBlocker | null> {
  if ((await readSysctl('/proc/sys/kernel/unprivileged_userns_clone')) === '0')
    return {
      problem: 'unprivileged user namespaces are disabled',
      fix: 'sysctl -w kernel.unprivileged_userns_clone=1',
    };
  if ((await readSysctl('/proc/sys/user/max_user_namespaces')) === '0')
    return {
      problem: 'user namespaces are disabled',
      fix: 'sysctl -w user.max_user_namespaces=15000',
    };
  if ((await readSysctl('/proc/sys/kernel/apparmor_restrict_unprivileged_userns')) === '1')
    return {
      problem: 'AppArmor restricts unprivileged user namespaces',
      fix:
        'add an AppArmor profile allowing userns for bwrap, or sysctl -w ' +
        'kernel.apparmor_restrict_unprivileged_userns=0',
    };
  return null;
}

export class BubblewrapSandbox implements Sandbox {
  readonly kind = 'bubblewrap' as const;
  private readonly cgroups = new CgroupManager();
  private readonly identity: SandboxIdentity | null;
  private bwrap?: Promise<string>;
  private plan?: Promise<HostPlan>;
  private checked?: Promise<void>;
  private staging?: Promise<boolean>;

  constructor(private readonly options: BubblewrapSandboxOptions = {}) {
    // As root we drop to a dedicated identity; otherwise the sandbox runs as whoever we are.
    this.identity =
      process.getuid?.() === 0 ? (options.identity ?? DEFAULT_SANDBOX_IDENTITY) : null;
  }

  check(): Promise<void> {
    this.checked ??= this.selfTest();
    // A failed check may pass after the admin fixes the host.
    this.checked.catch(() => (this.checked = undefined));
    return this.checked;
  }

  /** How limits are enforced on this host (for logs and the host fingerprint). */
  async describe(): Promise<string> {
    const support = await this.limitSupport();
    const memory = support.memory ? `cgroup v${support.version} memory` : 'RLIMIT_AS';
    const pids = support.pids ? `cgroup v${support.version} pids` : 'RLIMIT_NPROC';
    const cpus = support.cpuset ? `cgroup v${support.version} cpuset` : 'sched_setaffinity';
    const who = this.identity
      ? `uid ${this.identity.uid}`
      : `uid ${process.getuid?.() ?? '?'} (not root)`;
    return `bubblewrap (${memory}, ${pids}, ${cpus}, ${who})`;
  }

  /** What the host's cgroups allow, as used by this sandbox (everything false when forced to rlimits). */
  async limitSupport(): Promise<CgroupSupport> {
    if (this.options.limitMechanism === 'rlimit') {
      return {
        version: null,
        memory: false,
        pids: false,
        cpuset: false,
        notes: ['rlimits forced by options'],
      };
    }
    return this.cgroups.probe();
  }

  private async selfTest(): Promise<void> {
    this.bwrap ??= this.options.bwrap ? Promise.resolve(this.options.bwrap) : findBwrap();
    await this.bwrap;
    await helperBinary({ cacheDir: this.options.helperCacheDir });
    const dir = await mkdtemp(path.join(tmpdir(), 'perfjudge-sandbox-check-'));
    try {
      let result: SandboxResult;
      try {
        result = await this.run({
          command: 'true',
          args: [],
          workDir: dir,
          stdout: 'capture',
          limits: {
            wallTimeMs: 10_000,
            memoryBytes: 256 << 20,
            processes: 8,
            outputBytes: 1024,
            fileBytes: 1 << 20,
          },
        });
      } catch (error) {
        const blocker = await userNamespaceBlocker();
        const detail = error instanceof Error ? error.message : String(error);
        throw new UnavailableError(
          blocker
            ? `${blocker.problem}: ${blocker.fix} (${detail})`
            : `bubblewrap cannot start a sandbox: ${detail}`,
        );
      }
      if (result.exitCode !== 0) {
        throw new UnavailableError(
          `the sandbox's self-test (true) failed: exit ${result.exitCode ?? result.signal}: ${result.stderr.trim()}`,
        );
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * Whether the helper can stage mount sources here: root with the right to make a mount namespace
   * (a container's root often lacks it; then the sources must be reachable by the sandbox user).
   */
  private canStage(helper: string): Promise<boolean> {
    this.staging ??= (async () => {
      await mkdir(STAGE_DIR, { recursive: true, mode: 0o755 }).catch(() => undefined);
      const outcome = await runHelper({
        file: helper,
        args: ['--report-fd', '3', '--stage-dir', STAGE_DIR, '--stage', '/', '--', 'true'],
        reportOnFd3: true,
        stdout: 'capture',
        outputBytes: 1024,
        stderrBytes: 4096,
        backstopMs: SETUP_LIMIT_MS,
      });
      const report = parseHelperReport(outcome.reportText);
      return report?.execStarted === true && report.exitCode === 0;
    })();
    return this.staging;
  }

  async run(request: SandboxRequest): Promise<SandboxResult> {
    const req = normalizeRequest(request);
    if (req.signal?.aborted) throw abortError(req.signal);
    this.bwrap ??= this.options.bwrap ? Promise.resolve(this.options.bwrap) : findBwrap();
    this.plan ??= planHost();
    const [bwrap, plan, helper, support] = await Promise.all([
      this.bwrap,
      this.plan,
      helperBinary({ cacheDir: this.options.helperCacheDir }),
      this.limitSupport(),
    ]);
    const staged = await this.prepareFiles(req, helper);
    const pids = req.limits.processes + SANDBOX_OWN_PROCESSES;
    const cgroup = await this.createCgroup(req, support, pids);
    const controllers = new Set(cgroup?.controllers ?? []);
    const stdin = req.stdinFile ? await open(req.stdinFile, 'r') : undefined;
    try {
      const args = [
        ...this.helperArgs(req, { cgroup, controllers, pids, staged }),
        '--',
        bwrap,
        ...bubblewrapArgs(req, plan, this.options.extraToolchain, staged),
      ];
      const outcome = await runHelper({
        file: helper,
        args,
        ...requestStreams(req, stdin),
        reportOnFd3: true,
        backstopMs: req.limits.wallTimeMs + SETUP_LIMIT_MS + 5_000,
      });
      if (outcome.aborted) throw abortError(req.signal);
      return await resultOf(req, outcome, cgroup, controllers);
    } finally {
      await stdin?.close();
      await cgroup?.destroy();
    }
  }

  /**
   * Under a sandbox user, hands the work folder over and checks the sandbox can reach what it
   * mounts; true when the helper stages the mount sources.
   */
  private async prepareFiles(req: NormalizedRequest, helper: string): Promise<boolean> {
    if (!this.identity) return false;
    const staged = await this.canStage(helper);
    await handOverWorkDir(req.workDir, this.identity);
    if (!staged) await assertReachable(req.workDir, this.identity);
    for (const m of req.readOnly)
      await (staged ? assertReadable : assertReachable)(m.host, this.identity);
    return staged;
  }

  private async createCgroup(
    req: NormalizedRequest,
    support: CgroupSupport,
    pids: number,
  ): Promise<RunCgroup | null> {
    if (!support.memory && !support.pids && !support.cpuset) return null;
    return this.cgroups
      .create({
        memoryBytes: req.limits.memoryBytes,
        pids,
        cpu: req.cpu,
      })
      .catch((error: NodeJS.ErrnoException) => {
        throw new UnavailableError(
          `cannot set up the run's cgroup: ${error.code ?? ''} ${error.message}`,
        );
      });
  }

  /** The helper's options: its descriptors, limits, cgroup, CPU, identity and staged sources. */
  private helperArgs(
    req: NormalizedRequest,
    run: { cgroup: RunCgroup | null; controllers: Set<string>; pids: number; staged: boolean },
  ): string[] {
    const { cgroup, controllers, pids, staged } = run;
    const helperArgs = [
      '--report-fd',
      '3',
      '--exe-fd',
      String(EXE_FD),
      '--notify-fd',
      String(NOTIFY_FD),
      '--info-fd',
      String(INFO_FD),
      '--time-limit-ms',
      String(req.limits.wallTimeMs),
      '--setup-limit-ms',
      String(SETUP_LIMIT_MS),
      '--rlimit-fsize',
      String(req.limits.fileBytes),
    ];
    for (const file of cgroup?.procsFiles ?? []) helperArgs.push('--cgroup-procs', file);
    if (req.cpu !== undefined) helperArgs.push('--cpu', String(req.cpu));
    for (const file of req.resident) helperArgs.push('--resident', file);
    if (!controllers.has('memory')) helperArgs.push('--rlimit-as', String(req.limits.memoryBytes));
    // RLIMIT_NPROC counts every process of the uid on the host: only meaningful for our own uid.
    if (!controllers.has('pids') && this.identity) helperArgs.push('--rlimit-nproc', String(pids));
    if (this.identity)
      helperArgs.push('--uid', String(this.identity.uid), '--gid', String(this.identity.gid));
    if (staged) {
      helperArgs.push('--stage-dir', STAGE_DIR);
      for (const source of stagedSources(req)) helperArgs.push('--stage', source);
    }
    return helperArgs;
  }
}

/** The run's result from the helper's report and the cgroup's counters; a failed set-up throws. */
async function resultOf(
  req: NormalizedRequest,
  outcome: Awaited<ReturnType<typeof runHelper>>,
  cgroup: RunCgroup | null,
  controllers: Set<string>,
): Promise<SandboxResult> {
  const report = parseHelperReport(outcome.reportText);
  if (!report) {
    throw new UnavailableError(
      `the sandbox helper failed (exit ${outcome.helperExitCode ?? outcome.helperSignal}): ${outcome.stderr.trim()}`,
    );
  }
  if (!report.execStarted) {
    throw new UnavailableError(
      report.killed === 'setup-time'
        ? `bubblewrap did not set the sandbox up within ${SETUP_LIMIT_MS} ms`
        : `bubblewrap could not set the sandbox up: ${outcome.stderr.trim() || 'no message'}`,
    );
  }
  const stats = cgroup ? await cgroup.stats() : null;
  const term = termination(report, false);
  const limitExceeded = decideLimitExceeded({
    termination: term,
    killedFor: report.killed,
    outputExceeded: outcome.outputExceeded,
    oomKills: controllers.has('memory') ? (stats?.oomKills ?? 0) : null,
    pidsLimitHits: controllers.has('pids') ? (stats?.pidsLimitHits ?? 0) : null,
    memoryLimit: controllers.has('memory') ? 'cgroup' : 'rlimit',
    memoryBytes: req.limits.memoryBytes,
    maxRssBytes: report.maxRssKb * 1024,
  });
  return toSandboxResult(report, outcome, term, limitExceeded, req.counters, req.resident);
}

// The Docker sandbox, for hosts that run a Docker engine: one throw-away container per run, with no
// network, a read-only root, an unprivileged user and Docker's cgroup limits; our helper (built
// static) is the container's pid 1, so time limits and rusage work as in the bubblewrap sandbox.
import { UnavailableError } from '../../contracts';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { helperBinary } from './helper-binary';
import { normalizeRequest, type NormalizedRequest } from './request';
import { abortError, decideLimitExceeded, termination, toSandboxResult } from './result';
import { parseHelperReport, requestStreams, runHelper } from './run-helper';
import { type Sandbox, type SandboxRequest, type SandboxResult } from './sandbox';
import { handOverWorkDir, type SandboxIdentity } from './work-dir';

const execFileAsync = promisify(execFile);

const DEFAULT_DOCKER_IMAGE = 'perfjudge-runner:latest';
const HELPER_PATH = '/run/perfjudge/helper';
const REPORT_PATH = '/run/perfjudge/report';
/** Container start-up (pulling nothing: the image must be present) normally takes well under this. */
const SETUP_ALLOWANCE_MS = 30_000;

export interface DockerSandboxOptions {
  /** An image holding the toolchain (compilers, cmake, ninja); it must already be present. */
  image?: string;
  /** The docker CLI (default: `docker` on PATH). */
  docker?: string;
  helperCacheDir?: string;
  /** The user the container runs as (default 65534:65534). */
  identity?: SandboxIdentity;
}

/** `docker run` arguments for one request (exported for tests and logs). */
export function dockerRunArgs(
  req: NormalizedRequest,
  o: { name: string; image: string; helper: string; reportFile: string; identity: SandboxIdentity },
): string[] {
  const mount = (src: string, dst: string, readonly: boolean) =>
    `type=bind,src=${src},dst=${dst}${readonly ? ',readonly' : ''}`;
  const args = [
    'run',
    '--interactive', // standard input is ours to give (or /dev/null)
    '--name',
    o.name,
    '--network',
    'none',
    '--memory',
    String(req.limits.memoryBytes),
    '--memory-swap',
    String(req.limits.memoryBytes), // no swap beyond the limit
    '--pids-limit',
    String(req.limits.processes + 1), // + our helper
    '--read-only',
    '--user',
    `${o.identity.uid}:${o.identity.gid}`,
    '--cap-drop',
    'ALL',
    '--security-opt',
    'no-new-privileges',
    '--ipc',
    'private',
    '--hostname',
    'sandbox',
    '--tmpfs',
    `/tmp:rw,exec,nosuid,size=${req.limits.memoryBytes}`,
    '--mount',
    mount(req.workDir, req.workDir, false),
    '--mount',
    mount(o.helper, HELPER_PATH, true),
    // A bind-mounted file cannot be replaced from inside, only written, and the helper rewrites it last.
    '--mount',
    mount(o.reportFile, REPORT_PATH, false),
    '--workdir',
    req.cwd,
    '--entrypoint',
    HELPER_PATH,
  ];
  if (req.cpu !== undefined) args.push('--cpuset-cpus', String(req.cpu));
  for (const m of req.readOnly) args.push('--mount', mount(m.host, m.sandbox, true));
  for (const [k, v] of Object.entries(req.env)) args.push('--env', `${k}=${v}`);
  args.push(o.image);
  args.push('--report-file', REPORT_PATH, '--kill-all', '1');
  args.push('--time-limit-ms', String(req.limits.wallTimeMs));
  args.push('--rlimit-fsize', String(req.limits.fileBytes));
  if (req.cpu !== undefined) args.push('--cpu', String(req.cpu));
  // Docker's default seccomp profile refuses perf_event_open without CAP_PERFMON: there every
  // counter comes back 'unsupported' unless the host's profile allows the call.
  if (req.counters.length) args.push('--counters', req.counters.join(','));
  // The command is the helper's own child here: the helper confines it right before its exec.
  args.push('--seccomp-deny', req.denySyscalls.join(','));
  args.push('--', req.command, ...req.args);
  return args;
}

export class DockerSandbox implements Sandbox {
  readonly kind = 'docker' as const;
  private readonly image: string;
  private readonly docker: string;
  private readonly identity: SandboxIdentity;

  constructor(private readonly options: DockerSandboxOptions = {}) {
    this.image = options.image ?? DEFAULT_DOCKER_IMAGE;
    this.docker = options.docker ?? 'docker';
    this.identity = options.identity ?? { uid: 65534, gid: 65534 };
  }

  async check(): Promise<void> {
    try {
      await execFileAsync(this.docker, ['info', '--format', '{{.ServerVersion}}'], {
        timeout: 20_000,
      });
    } catch (error) {
      const e = error as NodeJS.ErrnoException & { stderr?: string };
      if (e.code === 'ENOENT') throw new UnavailableError('the docker CLI is not installed');
      throw new UnavailableError(
        `no Docker engine on this host (docker info fails): ${e.stderr?.trim() || e.message}`,
      );
    }
    try {
      await execFileAsync(this.docker, ['image', 'inspect', this.image], { timeout: 20_000 });
    } catch {
      throw new UnavailableError(
        `the Docker image ${this.image} is not present: build or pull it first`,
      );
    }
    await helperBinary({ cacheDir: this.options.helperCacheDir, static: true });
  }

  async run(request: SandboxRequest): Promise<SandboxResult> {
    const req = normalizeRequest(request);
    if (req.signal?.aborted) throw abortError(req.signal);
    const helper = await helperBinary({ cacheDir: this.options.helperCacheDir, static: true });
    const asRoot = process.getuid?.() === 0;
    if (asRoot) await handOverWorkDir(req.workDir, this.identity);

    const reportDir = await mkdtemp(path.join(tmpdir(), 'perfjudge-docker-'));
    const reportFile = path.join(reportDir, 'report');
    await writeFile(reportFile, '', { mode: 0o600 });
    if (asRoot) await chown(reportFile, this.identity.uid, this.identity.gid);
    const name = `perfjudge-${randomBytes(8).toString('hex')}`;
    const stdin = req.stdinFile ? await open(req.stdinFile, 'r') : undefined;
    const dockerCmd = (args: string[]) => execFileAsync(this.docker, args, { timeout: 30_000 });
    try {
      const outcome = await runHelper({
        file: this.docker,
        args: dockerRunArgs(req, {
          name,
          image: this.image,
          helper,
          reportFile,
          identity: this.identity,
        }),
        ...requestStreams(req, stdin),
        reportOnFd3: false,
        backstopMs: req.limits.wallTimeMs + SETUP_ALLOWANCE_MS,
        // The container's pid 1 (our helper) takes SIGTERM as "stop": it kills the tree and reports.
        stop: () => void dockerCmd(['kill', '--signal', 'TERM', name]).catch(() => undefined),
      });
      if (outcome.aborted) throw abortError(req.signal);
      const report = parseHelperReport(await readFile(reportFile, 'utf8'));
      if (!report) {
        throw new UnavailableError(
          `docker run failed (exit ${outcome.helperExitCode ?? outcome.helperSignal}): ${outcome.stderr.trim()}`,
        );
      }
      const { stdout } = await dockerCmd([
        'inspect',
        '--format',
        '{{json .State.OOMKilled}}',
        name,
      ]);
      const term = termination(report, true);
      const limitExceeded = decideLimitExceeded({
        termination: term,
        killedFor: report.killed,
        outputExceeded: outcome.outputExceeded,
        oomKills: null,
        pidsLimitHits: null,
        memoryLimit: 'docker',
        memoryBytes: req.limits.memoryBytes,
        maxRssBytes: report.maxRssKb * 1024,
        dockerOomKilled: stdout.trim() === 'true',
      });
      return toSandboxResult(report, outcome, term, limitExceeded, req.counters);
    } finally {
      await stdin?.close();
      await dockerCmd(['rm', '--force', name]).catch(() => undefined);
      await rm(reportDir, { recursive: true, force: true });
    }
  }
}

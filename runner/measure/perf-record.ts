// `perf record` of one untimed run, from outside the sandbox: where the program spends its time, as
// call stacks folded into Brendan Gregg's format. perf samples the run's pinned CPU as root (or with
// perf_event_paranoid ≤ 0); the program keeps perf_event_open denied by the sandbox's seccomp
// filter, so it can neither open events itself nor see these. What perf records is informational
// only: a profile that fails is a note, never a verdict.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { randomBytes } from 'node:crypto';
import { copyFile, link, mkdir, mkdtemp, open, rm, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { MAX_FUNCTION_NAME, type FoldedStack, type SampledProfile } from '../../contracts';
import { UnavailableError } from '../../contracts';

const execFileAsync = promisify(execFile);

/** Samples per second for a run of up to 4 s (longer runs: samplingHz): enough for a flame graph. */
export const SAMPLING_HZ = 499;

/** About this many samples per run at most: perf script unwinds each (milliseconds a sample). */
export const TARGET_SAMPLES = 2000;
const RATES = [SAMPLING_HZ, 249, 99, 49];

/**
 * The sampling rate for a run expected to last `runMs` (the baseline's timed median): 499 Hz, or
 * the fastest of a few lower rates that keeps a long run near TARGET_SAMPLES, so that perf
 * script's unwinding stops growing with the input. A few fixed rates, not a computed one: the
 * baseline's cached profile is keyed by its rate, and a median that moves a little keeps it (one
 * that moves across a step profiles the baseline once more).
 */
export function samplingHz(runMs: number | undefined): number {
  if (runMs === undefined || !(runMs > 0)) return SAMPLING_HZ;
  return RATES.find((hz) => (hz * runMs) / 1000 <= TARGET_SAMPLES) ?? RATES[RATES.length - 1]!;
}
/** Deepest stack kept; deeper ones keep their innermost frames under a marker. */
const MAX_FRAMES = 128;
/** Distinct stacks kept per side, the most sampled first; the rest only counted. */
const MAX_STACKS = 2000;
/**
 * Characters of frame names kept per side (the result travels through Redis and PostgreSQL):
 * symbol names are the contestant's, and long names on deep stacks must not bloat it.
 */
const MAX_STACK_CHARS = 256 * 1024;
/** How long perf may take to start, to stop, and to turn its samples into text. */
const START_TIMEOUT_MS = 15_000;
const SCRIPT_TIMEOUT_MS = 180_000;

/**
 * The argv of a CPU-wide `perf record` that starts with its events off and waits for `enable` on
 * its control FIFO, so that only the program's run is sampled, not perf's own start-up.
 *
 * Call stacks come from DWARF unwinding (perf copies the top of the user stack with each sample):
 * contest code is built with -O3, which leaves out frame pointers, so frame-pointer stacks (`-g`)
 * would be mostly one frame deep or garbage.
 */
export function perfRecordArgs(
  perf: string,
  options: {
    event: string;
    cpu: number | null;
    output: string;
    controlFifo: string;
    /** Samples a second (default SAMPLING_HZ; samplingHz). */
    hz?: number;
  },
): string[] {
  return [
    perf,
    'record',
    '-e',
    options.event,
    '-F',
    String(options.hz ?? SAMPLING_HZ),
    '--call-graph',
    'dwarf',
    // No build-id pass at the end (it reads every sample again: seconds for DWARF stacks) and
    // nothing copied to ~/.debug: perf script names the frames from --symfs by path, and each
    // profiled run's program has a path of its own (profiledProgramPath).
    '--no-buildid',
    '--no-buildid-cache',
    ...(options.cpu === null ? ['-a'] : ['-C', String(options.cpu)]),
    '-D',
    '-1',
    '--control',
    `fifo:${options.controlFifo}`,
    '-o',
    options.output,
  ];
}

/**
 * Where a profiled run's program appears inside the sandbox: a path of its own, never the timed
 * runs' /judge/program. perf knows a mapped file by its path: when another program at the same
 * path ran on the same CPU during a recording (another judging's, on a loaded host), perf took the
 * one for the other, its build-id and its unwinding tables, and the program's stacks came out
 * unnamed and cut short ("[unknown address]", no main). The name stays `program` (the comm).
 */
export function profiledProgramPath(): string {
  return `/judge/profiled-${randomBytes(8).toString('hex')}/program`;
}

let eventChoice: Promise<string> | undefined;

/** `cycles` where the host's PMU counts it, else `cpu-clock` (a timer: VMs have no PMU). */
function samplingEvent(perf: string): Promise<string> {
  eventChoice ??= execFileAsync(perf, ['stat', '-x', ',', '-e', 'cycles', 'true'], {
    timeout: 10_000,
  })
    .then(({ stderr }) => (/^\d+,/m.test(stderr) ? 'cycles' : 'cpu-clock'))
    .catch(() => 'cpu-clock');
  return eventChoice;
}

/** The file a process mapped, as perf's MMAP2 records name it: device "fe:00" and inode. */
export interface FileIdentity {
  path: string;
  device: string;
  inode: number;
}

/** perf's "fe:00" for a stat() device number (Linux's major/minor encoding). */
export function deviceName(dev: number): string {
  const major = Math.floor(dev / 256) & 0xfff;
  const minor = (dev & 0xff) | (Math.floor(dev / 4096) & 0xfff00);
  return `${major.toString(16).padStart(2, '0')}:${minor.toString(16).padStart(2, '0')}`;
}

const MMAP2 =
  /^.*\sPERF_RECORD_MMAP2 (\d+)\/\d+: \[\S+ @ \S+ ([0-9a-f]+:[0-9a-f]+) (\d+) \d+\]: \S+ (.*)$/;

/**
 * Folds `perf script -F comm,pid,ip,sym,dso --show-mmap-events` output: each sample is a header
 * line (`<comm> <pid>`) and its frames, innermost first, one per line (`<ip> <symbol> (<dso>)`),
 * then a blank line. Only samples of the program are kept: its command name, and — when `program`
 * is given — a process that mapped that very file (other judgings' programs on the same CPU have
 * the same name, never the same inode). Frames perf could not name are shown by their file; kernel
 * frames carry " [kernel]".
 */
export class StackFolder {
  private readonly stacks = new Map<string, number>();
  private readonly pids = new Set<string>();
  private frames: string[] | null = null;
  private keep = false;
  samples = 0;

  constructor(
    readonly comm: string,
    private readonly program: FileIdentity | null = null,
    /** Names the program's own addresses perf left unnamed (see programSymbols). */
    private readonly symbols: SymbolTable | null = null,
  ) {}

  line(raw: string): void {
    if (raw.trim() === '') return this.endSample();
    if (raw.includes(' PERF_RECORD_')) {
      this.endSample();
      const mmap = MMAP2.exec(raw);
      if (
        mmap &&
        this.program &&
        mmap[4] === this.program.path &&
        mmap[2] === this.program.device &&
        Number(mmap[3]) === this.program.inode
      )
        this.pids.add(mmap[1]!);
      return;
    }
    if (!/^\s/.test(raw)) {
      this.endSample();
      // The header: "<comm> <pid>" (the comm may hold spaces; the pid is the last field).
      const header = /^(.*?)\s+(\d+)(?:\/\d+)?\s*$/.exec(raw.trim());
      this.keep =
        header !== null &&
        header[1] === this.comm &&
        (this.program === null || this.pids.has(header[2]!));
      this.frames = [];
      return;
    }
    if (!this.keep || !this.frames) return;
    this.frames.push(frameName(raw.trim(), this.program?.path, this.symbols));
  }

  endSample(): void {
    if (this.keep && this.frames && this.frames.length > 0) {
      let frames = this.frames.reverse();
      if (frames.length > MAX_FRAMES)
        frames = ['[deeper frames cut]', ...frames.slice(frames.length - MAX_FRAMES + 1)];
      const key = frames.join('\n');
      this.stacks.set(key, (this.stacks.get(key) ?? 0) + 1);
      this.samples++;
    }
    this.frames = null;
    this.keep = false;
  }

  /** The folded stacks, the most sampled first (ties by their frames), capped. */
  profile(event: string, hz = SAMPLING_HZ): SampledProfile {
    this.endSample();
    const all: FoldedStack[] = [...this.stacks].map(([key, samples]) => ({
      frames: key.split('\n'),
      samples,
    }));
    all.sort((a, b) => b.samples - a.samples || compareFrames(a.frames, b.frames));
    const kept: FoldedStack[] = [];
    let chars = 0;
    for (const stack of all) {
      chars += stack.frames.reduce((n, f) => n + f.length, 0);
      if (kept.length === MAX_STACKS || chars > MAX_STACK_CHARS) break;
      kept.push(stack);
    }
    const otherSamples = all.slice(kept.length).reduce((sum, s) => sum + s.samples, 0);
    return { event, frequencyHz: hz, samples: this.samples, stacks: kept, otherSamples };
  }
}

function compareFrames(a: string[], b: string[]): number {
  const x = a.join(';');
  const y = b.join(';');
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The program's function symbols by address (from `nm -C -n`), for the frames perf left unnamed. */
export interface SymbolTable {
  addresses: number[];
  names: string[];
}

/** Parses `nm -C -n --defined-only` output: its text symbols (t, T, w, W), sorted by address. */
export function parseNm(text: string): SymbolTable {
  const table: SymbolTable = { addresses: [], names: [] };
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]+) [tTwW] (.+)$/.exec(line);
    if (!m) continue;
    table.addresses.push(parseInt(m[1]!, 16));
    table.names.push(m[2]!);
  }
  return table;
}

/** The symbol at or before `address` (a function's range ends where the next one starts). */
export function symbolAt(table: SymbolTable, address: number): string | null {
  let lo = 0;
  let hi = table.addresses.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (table.addresses[mid]! <= address) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found < 0 ? null : table.names[found]!;
}

/**
 * The program's symbols. perf names the program's frames itself, except when another process
 * mapped a different file at the same sandbox path on the same CPU (another judging's program at
 * /judge/program): it then names none of them, and the addresses it prints (relative to the file)
 * are looked up here.
 */
async function programSymbols(binary: string): Promise<SymbolTable | null> {
  return execFileAsync('nm', ['-C', '-n', '--defined-only', binary], {
    maxBuffer: 64 << 20,
    timeout: 60_000,
  })
    .then(({ stdout }) => parseNm(stdout))
    .catch(() => null);
}

/** "2c41 std::map<…>::operator[] (/judge/program)" → "std::map<…>::operator[]". */
export function frameName(
  text: string,
  programPath?: string,
  symbols?: SymbolTable | null,
): string {
  const space = text.indexOf(' ');
  const rest = space < 0 ? text : text.slice(space + 1);
  const open = rest.lastIndexOf(' (');
  let symbol = (open < 0 ? rest : rest.slice(0, open)).replace(/\+0x[0-9a-f]+$/, '');
  const dso = open < 0 ? '' : rest.slice(open + 2, -1);
  if (symbol === '[unknown]' && symbols && dso === programPath && space > 0)
    symbol = symbolAt(symbols, parseInt(text.slice(0, space), 16)) ?? symbol;
  let name = symbol;
  const kernel = dso === '[kernel.kallsyms]';
  // An address in no mapped file: where DWARF unwinding lost its way, typically above a function
  // whose stack frame is larger than the 8 KiB perf copies (a large local array).
  if (symbol === '[unknown]' || symbol === '')
    name = kernel
      ? '[kernel]'
      : dso === '[unknown]' || dso === ''
        ? '[unknown address]'
        : `[unknown in ${path.basename(dso)}]`;
  else if (kernel) name = `${symbol} [kernel]`;
  return name.slice(0, MAX_FUNCTION_NAME);
}

/**
 * A folder perf reads binaries from instead of `/` (`--symfs`): the host's library folders, which
 * the sandbox shows read-only at the same paths, and the program at the path it had inside.
 */
async function symbolFolder(dir: string, programInside: string, binary: string): Promise<string> {
  const root = path.join(dir, 'symfs');
  await mkdir(root);
  for (const top of ['usr', 'lib', 'lib64', 'lib32', 'bin', 'sbin'])
    await symlink(`/${top}`, path.join(root, top)).catch(() => undefined);
  const program = path.join(root, programInside);
  await mkdir(path.dirname(program), { recursive: true });
  // A copy when the binary is on another filesystem; perf only reads it.
  await link(binary, program).catch(() => copyFile(binary, program));
  return root;
}

/** Resolves once perf's stderr says `text`, rejects when perf exits or the time is up. */
function waitFor(child: ChildProcess, stderr: { text: string }, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => done(new UnavailableError(`perf record did not say "${text}"`)),
      START_TIMEOUT_MS,
    );
    const check = () => {
      if (stderr.text.includes(text)) done();
    };
    const exit = () =>
      done(
        new UnavailableError(`perf record stopped: ${stderr.text.trim().split('\n').pop() ?? ''}`),
      );
    function done(error?: Error) {
      clearTimeout(timer);
      child.stderr?.off('data', check);
      child.off('exit', exit);
      if (error) reject(error);
      else resolve();
    }
    child.stderr?.on('data', check);
    child.once('exit', exit);
    check();
  });
}

export interface RecordOptions<T> {
  perf: string;
  /** Samples a second (default SAMPLING_HZ; samplingHz). */
  hz?: number;
  /** The CPU the run is pinned to (sampled alone), or null for every CPU. */
  cpu: number | null;
  /** A private folder for perf's files, removed by the caller. */
  dir: string;
  /** The program's host path and where the sandbox shows it (its name is the samples' comm). */
  binary: string;
  programInside: string;
  /** Starts the run and resolves when it has ended. */
  run: () => Promise<T>;
}

/** What took the time: the run itself, and perf script's unwinding (both grow with the run). */
export interface RecordTimings {
  runMs: number;
  scriptMs: number;
}

/**
 * Samples `run()` with perf record from outside the sandbox and folds the program's stacks. Throws
 * UnavailableError when perf cannot record here (not installed, not allowed, no samples).
 */
export async function recordProfile<T>(
  options: RecordOptions<T>,
): Promise<{ result: T; profile: SampledProfile; timings: RecordTimings }> {
  const event = await samplingEvent(options.perf);
  const work = await mkdtemp(path.join(options.dir, 'perf-'));
  const fifo = path.join(work, 'control');
  const data = path.join(work, 'perf.data');
  await execFileAsync('mkfifo', ['-m', '600', fifo]);
  // Read-write, so that opening never waits for perf, and writes never fail while it lives.
  const control = await open(fifo, 'r+');
  const argv = perfRecordArgs(options.perf, {
    event,
    cpu: options.cpu,
    output: data,
    controlFifo: fifo,
    ...(options.hz === undefined ? {} : { hz: options.hz }),
  });
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
  const stderr = { text: '' };
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    if (stderr.text.length < 64 * 1024) stderr.text += chunk;
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  let result: T;
  let runStarted = 0;
  let runMs = 0;
  try {
    await waitFor(child, stderr, 'Events disabled');
    await control.write('enable\n');
    await waitFor(child, stderr, 'Events enabled');
    runStarted = performance.now();
    result = await options.run();
    runMs = performance.now() - runStarted;
    await control.write('disable\n');
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    throw error;
  } finally {
    await control.close();
  }
  child.kill('SIGINT');
  const code = await Promise.race([
    exited,
    new Promise<'late'>((r) => setTimeout(() => r('late'), START_TIMEOUT_MS)),
  ]);
  if (code === 'late') {
    child.kill('SIGKILL');
    throw new UnavailableError('perf record did not stop');
  }
  const symfs = await symbolFolder(work, options.programInside, options.binary);
  const program = await stat(options.binary);
  const folder = new StackFolder(
    path.basename(options.programInside),
    { path: options.programInside, device: deviceName(program.dev), inode: program.ino },
    await programSymbols(options.binary),
  );
  const scriptStarted = performance.now();
  await foldScript(options.perf, data, symfs, folder);
  const scriptMs = performance.now() - scriptStarted;
  if (folder.samples === 0)
    throw new UnavailableError(
      `perf recorded no samples of the program (${stderr.text.trim().split('\n').pop() ?? ''})`,
    );
  await rm(work, { recursive: true, force: true });
  return {
    result,
    profile: folder.profile(event, options.hz ?? SAMPLING_HZ),
    timings: { runMs, scriptMs },
  };
}

/** `perf script` over the recording, folded line by line (its text can be tens of megabytes). */
async function foldScript(
  perf: string,
  data: string,
  symfs: string,
  folder: StackFolder,
): Promise<void> {
  const child = spawn(
    perf,
    [
      'script',
      '-i',
      data,
      // Naming inlined frames runs addr2line per address (minutes for a 10 s run); like
      // cachegrind, the profile then counts inlined code toward the function it was inlined into.
      '--no-inline',
      '--symfs',
      symfs,
      '--kallsyms',
      '/proc/kallsyms',
      '--show-mmap-events',
      // Only the program's samples are unwound and printed: the recording holds every process on
      // the CPU (tens of MB of stacks on a busy host), and unwinding is perf script's slow part.
      '--comms',
      folder.comm,
      '-F',
      'comm,pid,ip,sym,dso',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const timer = setTimeout(() => child.kill('SIGKILL'), SCRIPT_TIMEOUT_MS);
  let errors = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    if (errors.length < 8192) errors += chunk;
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('close', (code) => resolve(code)),
  );
  for await (const line of createInterface({ input: child.stdout, crlfDelay: Infinity }))
    folder.line(line);
  const code = await exited;
  clearTimeout(timer);
  if (code !== 0)
    throw new UnavailableError(
      `perf script failed (${code ?? 'killed'}): ${errors.trim().split('\n').pop() ?? ''}`,
    );
}

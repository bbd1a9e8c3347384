// Per-run control groups for the sandbox: a memory limit with OOM-kill detection, a pids limit and a
// cpuset for the whole process tree. cgroup v1 (this project's dev hosts: hybrid v1) and v2; when the
// host does not let us create child groups, probe() says why and the caller falls back to rlimits.
import { randomBytes } from 'node:crypto';
import { access, mkdir, readFile, readdir, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

export type CgroupController = 'memory' | 'pids' | 'cpuset';

export interface CgroupSupport {
  version: 1 | 2 | null;
  /** Controllers we can create child groups in. */
  memory: boolean;
  pids: boolean;
  cpuset: boolean;
  /** Why a controller is unavailable, for logs and the report (empty when all are). */
  notes: string[];
}

export interface CgroupLimits {
  memoryBytes: number;
  /** pids.max: every process and thread of the tree, the sandbox's own included. */
  pids: number;
  cpu?: number;
}

export interface CgroupStats {
  /** Processes the kernel's OOM killer killed in this group. */
  oomKills: number;
  /** Forks refused because pids.max was reached. */
  pidsLimitHits: number;
  /** Peak memory charged to the group (RSS, page cache and kernel memory together), when known. */
  peakMemoryBytes: number | null;
}

export interface RunCgroup {
  /** The `cgroup.procs` files the helper writes the child's pid into before exec. */
  readonly procsFiles: string[];
  readonly controllers: CgroupController[];
  stats(): Promise<CgroupStats>;
  /** Kills anything left in the group and removes it. Safe to call twice. */
  destroy(): Promise<void>;
}

const PREFIX = 'perfjudge-sandbox-';

interface Mount {
  mountPoint: string;
  root: string;
  fsType: 'cgroup' | 'cgroup2';
  controllers: string[];
}

/** Parses /proc/self/mountinfo into the cgroup mounts it lists. */
function parseCgroupMounts(mountinfo: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of mountinfo.split('\n')) {
    const [left, right] = line.split(' - ');
    if (!left || !right) continue;
    const l = left.split(' ');
    const r = right.split(' ');
    const fsType = r[0];
    if (fsType !== 'cgroup' && fsType !== 'cgroup2') continue;
    const root = unescapeMount(l[3] ?? '/');
    const mountPoint = unescapeMount(l[4] ?? '');
    const controllers = fsType === 'cgroup' ? (r[2] ?? '').split(',') : [];
    mounts.push({ mountPoint, root, fsType, controllers });
  }
  return mounts;
}

function unescapeMount(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
}

/** Parses /proc/self/cgroup: hierarchy controllers → path ('' key for the v2 hierarchy). */
function parseProcCgroup(text: string): Map<string, string> {
  const result = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^(\d+):([^:]*):(.*)$/.exec(line);
    if (!m) continue;
    const controllers = m[2] ?? '';
    const p = m[3] ?? '/';
    if (controllers === '') result.set('', p);
    for (const c of controllers.split(',')) if (c) result.set(c, p);
  }
  return result;
}

function joinCgroup(mount: Mount, ownPath: string): string {
  // Inside a cgroup namespace the mount's root may be a prefix of our path.
  let rel = ownPath;
  if (mount.root !== '/' && rel.startsWith(mount.root)) rel = rel.slice(mount.root.length);
  return path.join(mount.mountPoint, rel);
}

async function exists(p: string): Promise<boolean> {
  try {
    await access(p);
    return true;
  } catch {
    return false;
  }
}

async function readCounter(file: string, key: string): Promise<number> {
  try {
    const text = await readFile(file, 'utf8');
    const m = new RegExp(`^${key} (\\d+)$`, 'm').exec(text);
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

async function readNumber(file: string): Promise<number | null> {
  try {
    const n = Number((await readFile(file, 'utf8')).trim());
    return Number.isFinite(n) ? n : null;
  } catch {
    return null;
  }
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error);
}

let counter = 0;
function childName(): string {
  counter += 1;
  return `${PREFIX}${process.pid}-${counter}-${randomBytes(3).toString('hex')}`;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** SIGKILLs everything in the groups until they are empty, then removes them. */
async function killAndRemove(dirs: string[], killFile?: string): Promise<void> {
  if (killFile) await writeFile(killFile, '1').catch(() => undefined);
  for (const dir of dirs) {
    for (let attempt = 0; attempt < 300; attempt++) {
      let pids: number[] = [];
      try {
        pids = (await readFile(path.join(dir, 'cgroup.procs'), 'utf8'))
          .split('\n')
          .filter(Boolean)
          .map(Number);
      } catch (error) {
        if (errorCode(error) === 'ENOENT') break;
      }
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
      try {
        await rmdir(dir);
        break;
      } catch (error) {
        const code = errorCode(error);
        if (code === 'ENOENT') break;
        if (code !== 'EBUSY' || attempt === 299) throw error;
        await sleep(10);
      }
    }
  }
}

const CONTROLLERS: CgroupController[] = ['memory', 'pids', 'cpuset'];

export class CgroupManager {
  private support?: Promise<CgroupSupport>;
  private bases = new Map<CgroupController, string>();
  private v2Base?: string;

  /** What this host lets us do; probed once. */
  probe(): Promise<CgroupSupport> {
    this.support ??= this.detect();
    return this.support;
  }

  /** The groups our per-run groups are created in (after probe()). */
  baseDirs(): string[] {
    return this.v2Base ? [this.v2Base] : [...new Set(this.bases.values())];
  }

  private async detect(): Promise<CgroupSupport> {
    let mounts: Mount[];
    let own: Map<string, string>;
    try {
      mounts = parseCgroupMounts(await readFile('/proc/self/mountinfo', 'utf8'));
      own = parseProcCgroup(await readFile('/proc/self/cgroup', 'utf8'));
    } catch (error) {
      return {
        version: null,
        memory: false,
        pids: false,
        cpuset: false,
        notes: [`cannot read cgroup info: ${errorCode(error)}`],
      };
    }
    const support: CgroupSupport = {
      version: null,
      memory: false,
      pids: false,
      cpuset: false,
      notes: [],
    };
    const v1 = CONTROLLERS.filter((c) =>
      mounts.some((m) => m.fsType === 'cgroup' && m.controllers.includes(c)),
    );
    if (v1.length > 0) return this.detectV1(mounts, own, support);
    return this.detectV2(mounts, own, support);
  }

  /** cgroup v1: one hierarchy per controller, a base under our own group in each. */
  private async detectV1(
    mounts: Mount[],
    own: Map<string, string>,
    support: CgroupSupport,
  ): Promise<CgroupSupport> {
    support.version = 1;
    for (const c of CONTROLLERS) {
      const mount = mounts.find((m) => m.fsType === 'cgroup' && m.controllers.includes(c));
      const ownPath = own.get(c);
      if (!mount || ownPath === undefined) {
        support.notes.push(`cgroup v1 ${c} controller not mounted`);
        continue;
      }
      // Nested under our own group, so whatever limits the runner itself lives under still apply.
      const base = joinCgroup(mount, ownPath);
      const probe = path.join(base, childName());
      try {
        await mkdir(probe);
        await rmdir(probe);
        this.bases.set(c, base);
        support[c] = true;
        await sweepStale(base);
      } catch (error) {
        support.notes.push(`cannot create a ${c} cgroup under ${base}: ${errorCode(error)}`);
      }
    }
    return support;
  }

  /** cgroup v2: the controllers delegated to our own group, enabled for its children. */
  private async detectV2(
    mounts: Mount[],
    own: Map<string, string>,
    support: CgroupSupport,
  ): Promise<CgroupSupport> {
    const { notes } = support;
    const unified = mounts.find((m) => m.fsType === 'cgroup2');
    const ownPath = own.get('');
    if (!unified || ownPath === undefined) {
      notes.push('no cgroup filesystem mounted');
      return support;
    }
    support.version = 2;
    const base = joinCgroup(unified, ownPath);
    try {
      const available = (await readFile(path.join(base, 'cgroup.controllers'), 'utf8'))
        .trim()
        .split(/\s+/);
      const wanted = CONTROLLERS.filter((c) => available.includes(c));
      for (const c of CONTROLLERS)
        if (!available.includes(c))
          notes.push(`cgroup v2 ${c} controller not delegated to ${base}`);
      if (wanted.length > 0) {
        // Fails with EBUSY when our own group holds processes ("no internal processes" rule): the
        // runner must then be started in a delegated group of its own (systemd Delegate=yes).
        await writeFile(
          path.join(base, 'cgroup.subtree_control'),
          wanted.map((c) => `+${c}`).join(' '),
        );
        const probe = path.join(base, childName());
        await mkdir(probe);
        await rmdir(probe);
        for (const c of wanted) support[c] = true;
        this.v2Base = base;
        await sweepStale(base);
      }
    } catch (error) {
      notes.push(
        `cannot create cgroup v2 children under ${base}: ${errorCode(error)} ` +
          '(run the runner in a delegated cgroup, e.g. systemd-run -p Delegate=yes)',
      );
      support.memory = support.pids = support.cpuset = false;
    }
    return support;
  }

  /** A fresh group for one run with the limits this host supports; null when it supports none. */
  async create(limits: CgroupLimits): Promise<RunCgroup | null> {
    const support = await this.probe();
    if (support.version === 2 && this.v2Base) return this.createV2(this.v2Base, support, limits);
    if (support.version === 1 && this.bases.size > 0) return this.createV1(limits);
    return null;
  }

  private async createV1(limits: CgroupLimits): Promise<RunCgroup> {
    const name = childName();
    const dirs = new Map<CgroupController, string>();
    const cleanup = () => killAndRemove([...dirs.values()]);
    try {
      const memBase = this.bases.get('memory');
      if (memBase) {
        const dir = path.join(memBase, name);
        await mkdir(dir);
        dirs.set('memory', dir);
        await writeFile(path.join(dir, 'memory.limit_in_bytes'), String(limits.memoryBytes));
        // Swap would let the tree grow past the limit; absent when the kernel does not account it.
        await writeFile(
          path.join(dir, 'memory.memsw.limit_in_bytes'),
          String(limits.memoryBytes),
        ).catch(() => undefined);
        await writeFile(path.join(dir, 'memory.swappiness'), '0').catch(() => undefined);
      }
      const pidsBase = this.bases.get('pids');
      if (pidsBase) {
        const dir = path.join(pidsBase, name);
        await mkdir(dir);
        dirs.set('pids', dir);
        await writeFile(path.join(dir, 'pids.max'), String(limits.pids));
      }
      const cpusetBase = this.bases.get('cpuset');
      if (cpusetBase && limits.cpu !== undefined) {
        const dir = path.join(cpusetBase, name);
        await mkdir(dir);
        dirs.set('cpuset', dir);
        // A v1 cpuset starts empty: it needs its memory nodes before any task may join.
        const mems = (await readFile(path.join(cpusetBase, 'cpuset.mems'), 'utf8')).trim();
        await writeFile(path.join(dir, 'cpuset.mems'), mems);
        await writeFile(path.join(dir, 'cpuset.cpus'), String(limits.cpu));
      }
    } catch (error) {
      await cleanup().catch(() => undefined);
      throw error;
    }
    const memDir = dirs.get('memory');
    const pidsDir = dirs.get('pids');
    let destroyed: Promise<void> | undefined;
    return {
      procsFiles: [...dirs.values()].map((d) => path.join(d, 'cgroup.procs')),
      controllers: [...dirs.keys()],
      stats: async () => ({
        oomKills: memDir
          ? await readCounter(path.join(memDir, 'memory.oom_control'), 'oom_kill')
          : 0,
        pidsLimitHits: pidsDir ? await readCounter(path.join(pidsDir, 'pids.events'), 'max') : 0,
        peakMemoryBytes: memDir
          ? await readNumber(path.join(memDir, 'memory.max_usage_in_bytes'))
          : null,
      }),
      destroy: () => (destroyed ??= cleanup()),
    };
  }

  private async createV2(
    base: string,
    support: CgroupSupport,
    limits: CgroupLimits,
  ): Promise<RunCgroup> {
    const dir = path.join(base, childName());
    await mkdir(dir);
    const controllers: CgroupController[] = [];
    const killFile = path.join(dir, 'cgroup.kill');
    const cleanup = async () =>
      killAndRemove([dir], (await exists(killFile)) ? killFile : undefined);
    try {
      if (support.memory) {
        await writeFile(path.join(dir, 'memory.max'), String(limits.memoryBytes));
        await writeFile(path.join(dir, 'memory.swap.max'), '0').catch(() => undefined);
        controllers.push('memory');
      }
      if (support.pids) {
        await writeFile(path.join(dir, 'pids.max'), String(limits.pids));
        controllers.push('pids');
      }
      if (support.cpuset && limits.cpu !== undefined) {
        await writeFile(path.join(dir, 'cpuset.cpus'), String(limits.cpu));
        controllers.push('cpuset');
      }
    } catch (error) {
      await cleanup().catch(() => undefined);
      throw error;
    }
    let destroyed: Promise<void> | undefined;
    return {
      procsFiles: [path.join(dir, 'cgroup.procs')],
      controllers,
      stats: async () => ({
        oomKills: support.memory
          ? await readCounter(path.join(dir, 'memory.events'), 'oom_kill')
          : 0,
        pidsLimitHits: support.pids ? await readCounter(path.join(dir, 'pids.events'), 'max') : 0,
        peakMemoryBytes: support.memory ? await readNumber(path.join(dir, 'memory.peak')) : null,
      }),
      destroy: () => (destroyed ??= cleanup()),
    };
  }
}

/** Removes groups a crashed runner left behind (their creator's pid is in the name). */
async function sweepStale(base: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(base);
  } catch {
    return;
  }
  for (const entry of entries) {
    const m = new RegExp(`^${PREFIX}(\\d+)-`).exec(entry);
    if (!m || isAlive(Number(m[1]))) continue;
    await killAndRemove([path.join(base, entry)]).catch(() => undefined);
  }
}

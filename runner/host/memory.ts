// The host's memory conditions (transparent huge pages mode, the reserved 2 MiB huge page pool),
// read from /sys and /proc, and how they differ from what the manifest says a judge host provides.
import { HUGE_PAGE_BYTES, type HostMemory, type ThpMode, THP_MODES } from '../../contracts';
import { formatByteSize } from '../../contracts';
import { selectedSetting } from './fingerprint';
import { HOST_ROOT, readHostFile } from './host-files';

export interface ObservedHostMemory {
  /** null when the kernel has no THP (or the file cannot be read). */
  transparentHugePages: ThpMode | null;
  /** The 2 MiB pool: pages reserved and free; null when unreadable. */
  hugePages: { total: number; free: number } | null;
}

/** The numeric fields of /proc/meminfo, in their own units (kB for sizes, pages for counts). */
export function parseMeminfo(text: string): Map<string, number> {
  const fields = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z0-9_()]+):\s+(\d+)/.exec(line);
    if (m) fields.set(m[1]!, Number(m[2]));
  }
  return fields;
}

const POOL_DIR = `sys/kernel/mm/hugepages/hugepages-${HUGE_PAGE_BYTES / 1024}kB`;

export async function readHostMemory(root = HOST_ROOT): Promise<ObservedHostMemory> {
  const thp = selectedSetting(
    await readHostFile(root, 'sys/kernel/mm/transparent_hugepage/enabled'),
  );
  const mode = (THP_MODES as readonly string[]).includes(thp ?? '') ? (thp as ThpMode) : null;
  // The 2 MiB pool's own sysfs folder; /proc/meminfo's HugePages_* describe the default size only.
  const total = await readHostFile(root, `${POOL_DIR}/nr_hugepages`);
  const free = await readHostFile(root, `${POOL_DIR}/free_hugepages`);
  let hugePages: ObservedHostMemory['hugePages'] = null;
  if (total !== null && free !== null && /^\d+$/.test(total) && /^\d+$/.test(free)) {
    hugePages = { total: Number(total), free: Number(free) };
  } else {
    const meminfo = parseMeminfo((await readHostFile(root, 'proc/meminfo')) ?? '');
    if (meminfo.get('Hugepagesize') === HUGE_PAGE_BYTES / 1024 && meminfo.has('HugePages_Total'))
      hugePages = {
        total: meminfo.get('HugePages_Total')!,
        free: meminfo.get('HugePages_Free') ?? 0,
      };
  }
  return { transparentHugePages: mode, hugePages };
}

export interface MemoryDifference {
  item: 'transparent-huge-pages' | 'huge-pages';
  /** What differs, in words. */
  message: string;
  /** The command that makes the host match (as root). */
  fix: string;
}

/** How this host differs from the manifest's memory conditions; empty when it matches. */
export function hostMemoryDifferences(
  required: HostMemory,
  observed: ObservedHostMemory,
): MemoryDifference[] {
  const differences: MemoryDifference[] = [];
  const thp = observed.transparentHugePages;
  if (thp !== required.transparentHugePages)
    differences.push({
      item: 'transparent-huge-pages',
      message:
        `transparent huge pages are ${thp === null ? 'not readable' : `"${thp}"`}, ` +
        `the benchmark definition says "${required.transparentHugePages}"`,
      fix: `echo ${required.transparentHugePages} > /sys/kernel/mm/transparent_hugepage/enabled (or transparent_hugepage=${required.transparentHugePages} on the kernel command line)`,
    });
  const pages = required.hugePages === 'none' ? 0 : required.hugePages / HUGE_PAGE_BYTES;
  const pool = observed.hugePages;
  const described = required.hugePages === 'none' ? 'none' : formatByteSize(required.hugePages);
  const fix = `sysctl -w vm.nr_hugepages=${pages} (persist it in /etc/sysctl.d/)`;
  if (pool === null)
    differences.push({
      item: 'huge-pages',
      message: `the 2 MiB huge page pool is not readable, the benchmark definition says ${described}`,
      fix,
    });
  else if (pool.total !== pages)
    differences.push({
      item: 'huge-pages',
      message:
        `the 2 MiB huge page pool holds ${pool.total} pages (${formatByteSize(pool.total * HUGE_PAGE_BYTES)}), ` +
        `the benchmark definition says ${described}`,
      fix,
    });
  else if (pool.free < pages)
    differences.push({
      item: 'huge-pages',
      message: `${pages - pool.free} of the pool's ${pages} huge pages are taken by other processes`,
      fix: 'stop the processes that map them: the whole pool belongs to the judged program',
    });
  return differences;
}

/** One line per difference, for refusals, labels and logs. */
function describeDifferences(differences: MemoryDifference[]): string[] {
  return differences.map((d) => `${d.message} (fix: ${d.fix})`);
}

/**
 * This host's differences from a manifest's memory conditions, in words; empty when it matches or
 * when there is nothing to check (no conditions, or not a Linux host: a native Windows host has no
 * THP or hugetlb pool, and its job helper never grants large pages).
 */
export async function checkHostMemory(
  required: HostMemory | undefined,
  root = HOST_ROOT,
): Promise<string[]> {
  if (!required || process.platform !== 'linux') return [];
  return describeDifferences(hostMemoryDifferences(required, await readHostMemory(root)));
}

// The manifest's host conditions said in words, once: the challenge page, the CLI and the runner's
// refusals all quote these sentences, so what contestants read is what runners check.
import { formatByteSize, HUGE_PAGE_BYTES, type HostMemory } from '../../../contracts';

export interface HostMemoryStatement {
  transparentHugePages: string;
  hugePages: string;
}

export function describeHostMemory(memory: HostMemory): HostMemoryStatement {
  const thp: Record<HostMemory['transparentHugePages'], string> = {
    always: 'always: anonymous memory gets 2 MiB pages where the kernel can',
    madvise: 'madvise: only memory you madvise(MADV_HUGEPAGE) gets 2 MiB pages',
    never: 'never: madvise(MADV_HUGEPAGE) has no effect',
  };
  const pool =
    memory.hugePages === 'none'
      ? 'none: no reserved pool, so mmap with MAP_HUGETLB fails with ENOMEM'
      : `${formatByteSize(memory.hugePages)} reserved (${memory.hugePages / HUGE_PAGE_BYTES} pages of ` +
        '2 MiB) for MAP_HUGETLB; a mapping beyond it fails with ENOMEM';
  return { transparentHugePages: thp[memory.transparentHugePages], hugePages: pool };
}

/** Lines a patch adds that map hugetlb pages (mmap, shmget, memfd_create flags). */
const HUGETLB_FLAG = /\b(MAP_HUGETLB|SHM_HUGETLB|MFD_HUGETLB)\b/;

/**
 * What to tell a contestant whose patch maps hugetlb pages on hosts with no pool: in 2022 two such
 * solutions died (SIGABRT, SIGSEGV) on a host without one, and nothing said why. Null otherwise.
 */
export function hugePageHint(patchText: string, memory: HostMemory | undefined): string | null {
  if (!memory || memory.hugePages !== 'none') return null;
  const uses = patchText
    .split('\n')
    .some((l) => l.startsWith('+') && !l.startsWith('+++') && HUGETLB_FLAG.test(l));
  if (!uses) return null;
  const thp =
    memory.transparentHugePages === 'never'
      ? 'transparent huge pages are off too'
      : `madvise(MADV_HUGEPAGE) works: transparent huge pages are "${memory.transparentHugePages}"`;
  return (
    'the patch maps huge pages (MAP_HUGETLB), but judge hosts reserve no huge page pool: such a ' +
    `mapping fails with ENOMEM (MAP_FAILED); fall back to ordinary pages (${thp})`
  );
}

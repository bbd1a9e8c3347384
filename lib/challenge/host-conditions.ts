// The manifest's host conditions said in words, once: the challenge page, the CLI and the runner's
// refusals all quote these sentences, so what contestants read is what runners check.
import { formatByteSize, HUGE_PAGE_BYTES, type HostMemory } from '../../contracts';

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

// The syscalls no contest program (nor its compiler) needs, denied in every sandboxed run and build
// (runner/sandbox/sandbox-helper.c applies the filter): a denied call fails with EPERM. A challenge's
// manifest may allow some by name (limits.allowSyscalls), e.g. io_uring for an I/O contest.
import { z } from 'zod';

export const DENIED_SYSCALLS = [
  // Kernel keyrings: a key left in a keyring outlives the run (a channel to the next one).
  'keyctl',
  'add_key',
  'request_key',
  // Reading or steering other processes.
  'ptrace',
  'process_vm_readv',
  'process_vm_writev',
  'process_madvise',
  'pidfd_getfd',
  'kcmp',
  // Kernel programs and performance counters (the trusted helper opens the counters itself).
  'bpf',
  'perf_event_open',
  'userfaultfd',
  // Mounts and namespaces (clone with a namespace flag is denied too; clone3 answers ENOSYS).
  'mount',
  'umount2',
  'pivot_root',
  'chroot',
  'move_mount',
  'open_tree',
  'fsopen',
  'fsconfig',
  'fsmount',
  'fspick',
  'mount_setattr',
  'unshare',
  'setns',
  'clone3',
  // Asynchronous I/O that bypasses the other rules' view of what a program does.
  'io_uring_setup',
  'io_uring_enter',
  'io_uring_register',
  // The machine itself: kernels, modules, clocks, swap, accounting, host names, I/O ports.
  'kexec_load',
  'kexec_file_load',
  'init_module',
  'finit_module',
  'delete_module',
  'reboot',
  'swapon',
  'swapoff',
  'acct',
  'settimeofday',
  'clock_settime',
  'clock_adjtime',
  'adjtimex',
  'sethostname',
  'setdomainname',
  'iopl',
  'ioperm',
  'quotactl',
  'syslog',
  'vhangup',
  'uselib',
  'lookup_dcookie',
  'open_by_handle_at',
  'name_to_handle_at',
  'fanotify_init',
  // Memory of other processes moved between NUMA nodes.
  'migrate_pages',
  'move_pages',
  // Leaving the CPU the run is pinned to (single-threaded rule) where no cpuset cgroup holds it.
  'sched_setaffinity',
  // A change of persona: ADDR_NO_RANDOMIZE (setarch -R, or a program re-exec'ing itself with it)
  // turns ASLR off for the program, a fixed layout the baseline's runs never get (the judge's
  // layout policy, runner/judge/measure.ts). Only the change is denied: the query
  // personality(0xffffffff) still answers (sandbox-helper.c).
  'personality',
] as const;
export type DeniedSyscall = (typeof DENIED_SYSCALLS)[number];

/**
 * Denied whatever a challenge says: the uid's own keyring (`@u`) outlives every run and is shared
 * by all of them, so no fresh session keyring could stop a key left there.
 */
export const NEVER_ALLOWED_SYSCALLS = ['keyctl', 'add_key', 'request_key'] as const;

const ALLOWABLE = DENIED_SYSCALLS.filter(
  (name) => !(NEVER_ALLOWED_SYSCALLS as readonly string[]).includes(name),
);

/** A syscall a challenge (or a trusted tool's run) may allow. */
export const allowableSyscallSchema = z.enum(ALLOWABLE as [string, ...string[]], {
  error: (issue) =>
    `${String(issue.input)} is not a syscall a challenge may allow (one of ${ALLOWABLE.join(', ')})`,
});

/** The deny list for a run: every denied syscall the challenge does not allow. */
export function syscallsToDeny(allowed: readonly string[] = []): DeniedSyscall[] {
  const allow = new Set(allowed);
  return DENIED_SYSCALLS.filter((name) => !allow.has(name));
}

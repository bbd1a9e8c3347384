/* sandbox-helper: starts one sandboxed command with limits, kills its tree on demand and reports
 * what the kernel measured (rusage of the whole waited tree) as one JSON line.
 * Built on first use by runner/sandbox/helper-binary.ts; see runner/sandbox/README.md.
 *
 * Outer mode (on the host, usually as root):
 *   sandbox-helper [options] -- COMMAND [ARGS...]
 *     --report-fd N          write the JSON report to this inherited fd
 *     --report-file PATH     ...or to this file (opened before the command starts; Docker)
 *     --cgroup-procs PATH    write the child's pid here before exec (repeatable)
 *     --cpu N                pin the child (and so its whole tree) to CPU N
 *     --rlimit-as BYTES      RLIMIT_AS (soft = hard), for hosts without a memory cgroup
 *     --rlimit-fsize BYTES   RLIMIT_FSIZE: writing past it raises SIGXFSZ
 *     --rlimit-nproc N       RLIMIT_NPROC, for hosts without a pids cgroup
 *     --uid U --gid G        drop to this unprivileged identity in the child (when started as root)
 *     --exe-fd N             give the child a read-only fd N on this helper's own binary
 *     --stage-dir DIR        (as root) in a private mount namespace of the child, mount a small
 *                            tmpfs on DIR and bind every --stage PATH at DIR/0, DIR/1, … there,
 *                            opened with root's rights before the uid change: bubblewrap, running
 *                            as the sandbox user, then mounts DIR/k and never has to reach PATH
 *                            itself (a root home is 0700). The host's mounts are not touched.
 *     --stage PATH           a file or folder to stage (repeatable, in order)
 *                            (bubblewrap copies it into the sandbox with --ro-bind-data)
 *     --notify-fd N          give the child the write end of the exec pipe at fd N; the inner mode
 *                            writes 'R' to it right before exec, which starts the clock
 *     --info-fd N            give the child the write end of bwrap's --info-fd pipe at fd N; its
 *                            "child-pid" is the sandbox's init, killed first so rusage stays whole
 *     --time-limit-ms N      kill the tree N ms after the command started
 *     --setup-limit-ms N     kill the tree if the command has not started after N ms
 *     --kill-all 1           (as pid 1 of a container) kill every remaining process at the end
 *     --counters LIST        count these events (comma-separated names of COUNTER_DEFS) on the
 *                            direct child with perf_event_open, from its exec on (Docker); with
 *                            --notify-fd the inner init counts instead and reports on that pipe
 *     --seccomp-deny LIST    confine the direct child before its exec (Docker; see confine_untrusted);
 *                            not with --notify-fd, where the child is bwrap and the inner init confines
 *     --resident PATH        before the command starts, check with mincore that PATH is wholly in
 *                            the page cache and read it back in when it is not (repeatable); the
 *                            report gives the resident pages before and after, in option order
 *   With --cpu, the report also gives that CPU's busy and steal ticks (/proc/stat) from the
 *   command's start to its end: the disturbance evidence (other tasks on the pinned CPU).
 *   SIGTERM, SIGINT or SIGHUP to the helper kill the tree; the report is written all the same.
 *
 * Inner mode (inside the sandbox, as the sandbox's command):
 *   sandbox-helper --inner N --seccomp-deny LIST [--counters LIST] -- COMMAND [ARGS...]
 *   closes every fd but 0-2, confines the command (a fresh session keyring, then the syscall
 *   filter denying LIST), writes 'R' to fd N, and execs COMMAND (looked up on PATH); when the
 *   command is over, writes its status line, then one "C name errno value enabled running" line
 *   per counter, then "T n": the tasks (threads and processes) the command's tree started, read
 *   from the pid namespace's ns_last_pid (the command is pid 2 of a fresh namespace).
 *
 * Counters are opened by the parent (which keeps the only fds, close-on-exec) on the forked child
 * before it execs, with enable_on_exec (nothing of the helper's own set-up is counted) and inherit
 * (the command's children and threads count too). Unprivileged, perf_event_paranoid 2 allows only
 * user-space counting of a process we may ptrace-read: exclude_kernel is set, except for events
 * that only happen in the kernel (context switches, migrations), which are asked for whole and
 * fail with EACCES there rather than read as a meaningless 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <linux/keyctl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CGROUPS 8
#define MAX_KEEP 5
#define MAX_COUNTERS 32
#define MAX_RESIDENT 16
#define MAX_STAGED 16
/* The notify pipe's traffic: 'R', the status line, and up to MAX_COUNTERS counter lines. */
#define NOTIFY_BUF_SIZE 4096

static void die(const char *what) {
  fprintf(stderr, "sandbox-helper: %s: %s\n", what, strerror(errno));
  exit(125);
}

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static long long parse_num(const char *s, const char *opt) {
  char *end = NULL;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || !end || *end || v < 0) {
    fprintf(stderr, "sandbox-helper: bad number for %s: %s\n", opt, s);
    exit(125);
  }
  return v;
}

/* Closes every fd >= 3 except the ones in keep (close_range where the kernel has it). */
static void close_fds_except(const int *keep, int nkeep) {
  unsigned int from = 3;
  for (;;) {
    int next = -1;
    for (int i = 0; i < nkeep; i++)
      if (keep[i] >= (int)from && (next < 0 || keep[i] < next)) next = keep[i];
    unsigned int to = next < 0 ? ~0U : (unsigned int)next - 1;
    if (to >= from && syscall(SYS_close_range, from, to, 0) != 0) {
      long max = sysconf(_SC_OPEN_MAX);
      if (max < 0 || max > 65536) max = 65536;
      for (long fd = from; fd <= (long)to && fd < max; fd++) close((int)fd);
    }
    if (next < 0) return;
    from = (unsigned int)next + 1;
  }
}

/* The events a request may name (the same names as perf's). */
struct counter_def {
  const char *name;
  uint32_t type;
  uint64_t config;
  /* Counted only in kernel mode: exclude_kernel would make it read 0 whatever happened. */
  int kernel_only;
};

#define HW_CACHE(cache, op, result)                                                                \
  ((uint64_t)(cache) | ((uint64_t)(op) << 8) | ((uint64_t)(result) << 16))

static const struct counter_def COUNTER_DEFS[] = {
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0},
    {"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, 0},
    {"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, 0},
    {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 1},
    {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, 1},
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0},
    {"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, 0},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0},
    {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 0},
    {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 0},
    {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, 0},
    {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 0},
    {"L1-dcache-loads", PERF_TYPE_HW_CACHE,
     HW_CACHE(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ,
              PERF_COUNT_HW_CACHE_RESULT_ACCESS),
     0},
    {"L1-dcache-load-misses", PERF_TYPE_HW_CACHE,
     HW_CACHE(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ,
              PERF_COUNT_HW_CACHE_RESULT_MISS),
     0},
    {"dTLB-loads", PERF_TYPE_HW_CACHE,
     HW_CACHE(PERF_COUNT_HW_CACHE_DTLB, PERF_COUNT_HW_CACHE_OP_READ,
              PERF_COUNT_HW_CACHE_RESULT_ACCESS),
     0},
    {"dTLB-load-misses", PERF_TYPE_HW_CACHE,
     HW_CACHE(PERF_COUNT_HW_CACHE_DTLB, PERF_COUNT_HW_CACHE_OP_READ,
              PERF_COUNT_HW_CACHE_RESULT_MISS),
     0},
};
#define NUM_COUNTER_DEFS ((int)(sizeof COUNTER_DEFS / sizeof COUNTER_DEFS[0]))

struct counter {
  int def;
  int fd;
  /* errno of perf_event_open (or of the read), 0 when it counted. */
  int err;
  uint64_t value, enabled, running;
};

/* Parses "a,b,c" into counters; an unknown or repeated name is the caller's bug. */
static int parse_counters(const char *list, struct counter *out) {
  int n = 0;
  const char *p = list;
  while (p && *p) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    int found = -1;
    for (int d = 0; d < NUM_COUNTER_DEFS; d++)
      if (strlen(COUNTER_DEFS[d].name) == len && strncmp(COUNTER_DEFS[d].name, p, len) == 0)
        found = d;
    for (int k = 0; k < n; k++)
      if (out[k].def == found) found = -1;
    if (found < 0 || n == MAX_COUNTERS) {
      fprintf(stderr, "sandbox-helper: bad counter list: %s\n", list);
      exit(125);
    }
    out[n++] = (struct counter){.def = found, .fd = -1, .err = 0};
    p = end ? end + 1 : NULL;
  }
  return n;
}

/* Opens every counter on `pid`, a child of ours that has not exec'd yet. The fds are ours alone:
 * opened after the fork and close-on-exec, so neither the command nor anything it starts has them. */
static void open_counters(struct counter *c, int n, pid_t pid) {
  for (int k = 0; k < n; k++) {
    const struct counter_def *d = &COUNTER_DEFS[c[k].def];
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = d->type;
    attr.config = d->config;
    attr.disabled = 1;
    attr.enable_on_exec = 1;
    attr.inherit = 1;
    attr.exclude_kernel = d->kernel_only ? 0 : 1;
    attr.exclude_hv = 1;
    attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    long fd = syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    c[k].fd = fd < 0 ? -1 : (int)fd;
    c[k].err = fd < 0 ? errno : 0;
  }
}

/* Reads the totals once the whole tree is reaped: inherited counts are folded in by then. */
static void read_counters(struct counter *c, int n) {
  for (int k = 0; k < n; k++) {
    if (c[k].fd < 0) continue;
    uint64_t v[3];
    if (read(c[k].fd, v, sizeof v) == (ssize_t)sizeof v) {
      c[k].value = v[0];
      c[k].enabled = v[1];
      c[k].running = v[2];
    } else {
      c[k].err = errno ? errno : EIO;
    }
    close(c[k].fd);
    c[k].fd = -1;
  }
}

/* "C name errno value enabled running" lines: the inner init's report to the outer helper. */
static size_t format_counter_lines(char *buf, size_t size, const struct counter *c, int n) {
  size_t len = 0;
  for (int k = 0; k < n && len < size; k++) {
    int w = snprintf(buf + len, size - len, "C %s %d %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
                     COUNTER_DEFS[c[k].def].name, c[k].err, c[k].value, c[k].enabled,
                     c[k].running);
    if (w < 0 || (size_t)w >= size - len) break;
    len += (size_t)w;
  }
  return len;
}

/* Parses the lines above (from our own init) back into counters; anything else is skipped. */
static int parse_counter_lines(const char *text, struct counter *out) {
  int n = 0;
  for (const char *p = text; p && *p && n < MAX_COUNTERS;) {
    const char *line = p;
    p = strchr(p, '\n');
    if (p) p++;
    char name[64];
    int err;
    uint64_t v, e, r;
    if (sscanf(line, "C %63s %d %" SCNu64 " %" SCNu64 " %" SCNu64, name, &err, &v, &e, &r) != 5)
      continue;
    for (int d = 0; d < NUM_COUNTER_DEFS; d++)
      if (strcmp(COUNTER_DEFS[d].name, name) == 0)
        out[n++] = (struct counter){.def = d, .fd = -1, .err = err, .value = v, .enabled = e,
                                    .running = r};
  }
  return n;
}

/* Puts `c` in place of the reading of the same event (or appends it). */
static int replace_counter(struct counter *out, int n, struct counter c) {
  for (int k = 0; k < n; k++)
    if (out[k].def == c.def) {
      out[k] = c;
      return n;
    }
  if (n < MAX_COUNTERS) out[n++] = c;
  return n;
}

static void print_counters_json(FILE *f, const struct counter *c, int n) {
  fputs(",\"counters\":[", f);
  for (int k = 0; k < n; k++)
    fprintf(f,
            "%s{\"name\":\"%s\",\"errno\":%d,\"value\":%" PRIu64 ",\"enabled\":%" PRIu64
            ",\"running\":%" PRIu64 "}",
            k ? "," : "", COUNTER_DEFS[c[k].def].name, c[k].err, c[k].value, c[k].enabled,
            c[k].running);
  fputs("]", f);
}

static int read_byte(int fd) {
  char b;
  ssize_t n;
  do n = read(fd, &b, 1);
  while (n < 0 && errno == EINTR);
  return n == 1 ? b : -1;
}

/* In the forked child, on its end of the sync socket: lets the parent attach counters, and waits
 * until it has. The helper is not dumpable and the child inherited that, but perf_event_open needs
 * ptrace-read access to its target; nothing else runs in the sandbox yet, and the exec that
 * follows makes the process dumpable anyway. */
static void await_counters(int sync_fd) {
  if (prctl(PR_SET_DUMPABLE, 1) != 0) die("prctl");
  if (write(sync_fd, "r", 1) != 1) _exit(125);
  if (read_byte(sync_fd) != 'G') _exit(125);
  close(sync_fd);
}

/* In the parent: once the child is ready, attaches the counters, then lets it go on to exec. */
static void attach_counters(int sync[2], struct counter *c, int n, pid_t pid) {
  close(sync[1]);
  /* No 'r': the child died before it was ready, and every counter fails (ESRCH) with it. */
  if (read_byte(sync[0]) != 'r') {
    for (int k = 0; k < n; k++) c[k] = (struct counter){.def = c[k].def, .fd = -1, .err = ESRCH};
  } else {
    open_counters(c, n, pid);
    if (write(sync[0], "G", 1) != 1 && errno != EPIPE) die("sync socket");
  }
  close(sync[0]);
}

/* The sync socket between the helper and the child it counts (both ends close-on-exec). */
static void sync_socket(int sync[2]) {
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sync) != 0) die("socketpair");
}

/* ---- Confinement of the untrusted command: applied by whichever process execs it, as
 * the very last step before the exec, after the counters are attached (perf_event_open is ours,
 * done by the parent) and after every other set-up call the helper needs. ---- */

/* The deny list to apply (comma-separated syscall names), from --seccomp-deny; NULL: none asked. */
static const char *seccomp_deny = NULL;

/* The runner's session keyring (a systemd service or a login shell has one) would be shared by
 * every run: a solution could leave keys in it for a later run. Join a new, empty, anonymous one.
 * ENOSYS (a kernel without keyrings) and EPERM (an outer seccomp profile such as Docker's default
 * one, which binds the command too) both mean the command cannot reach any keyring either. */
static void join_fresh_session_keyring(void) {
  if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 && errno != ENOSYS &&
      errno != EPERM)
    die("keyctl(KEYCTL_JOIN_SESSION_KEYRING)");
}

static void filter_error(const char *what, int rc) {
  fprintf(stderr, "sandbox-helper: syscall filter: %s: %s\n", what, strerror(-rc));
  _exit(125);
}

/* Namespace flags of clone(2): creating namespaces is denied even where clone itself is not. */
static const uint64_t CLONE_NAMESPACE_FLAGS[] = {CLONE_NEWNS,  CLONE_NEWUTS, CLONE_NEWIPC,
                                                 CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET,
                                                 CLONE_NEWCGROUP};

/* personality(2)'s argument that changes nothing and returns the current persona. */
#define PERSONALITY_QUERY 0xffffffffu

/* A seccomp filter (libseccomp) that lets everything through except the named syscalls, which
 * fail with EPERM so a program can handle it. The list comes from the runner (contracts'
 * DENIED_SYSCALLS minus what the challenge allows). Three calls are special: clone3 fails with
 * ENOSYS, so that libc falls back to clone, whose flags a filter can see (clone3's are behind a
 * pointer); personality is denied only as a change of persona (ADDR_NO_RANDOMIZE would turn ASLR
 * off for the program alone), never as the query; and clone with a namespace flag is denied
 * whatever the list says. Syscalls of another
 * architecture (32-bit x86 through int 0x80) would bypass a filter written for the native table:
 * they all fail with EPERM. */
static void apply_syscall_filter(const char *deny_list) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) {
    fprintf(stderr, "sandbox-helper: syscall filter: seccomp_init failed\n");
    _exit(125);
  }
  int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ERRNO(EPERM));
  if (rc < 0) filter_error("bad-architecture action", rc);
  /* x32 syscalls (the native table's numbers plus bit 30) count as x86_64 to the kernel's arch
   * check: without their own table in the filter, `keyctl | 0x40000000` would pass it. */
  if (seccomp_arch_native() == SCMP_ARCH_X86_64) {
    rc = seccomp_arch_add(ctx, SCMP_ARCH_X32);
    if (rc < 0 && rc != -EEXIST) filter_error("x32 table", rc);
  }
  char name[64];
  for (const char *p = deny_list; p && *p;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == 0 || len >= sizeof name) {
      fprintf(stderr, "sandbox-helper: bad syscall list: %s\n", deny_list);
      _exit(125);
    }
    memcpy(name, p, len);
    name[len] = 0;
    p = end ? end + 1 : NULL;
    int nr = seccomp_syscall_resolve_name(name);
    /* A name this libseccomp does not know is a syscall this kernel interface cannot reach. */
    if (nr == __NR_SCMP_ERROR) continue;
    uint32_t action = strcmp(name, "clone3") == 0 ? SCMP_ACT_ERRNO(ENOSYS) : SCMP_ACT_ERRNO(EPERM);
    if (strcmp(name, "personality") == 0)
      /* The kernel reads the argument as 32 bits: so does the rule (0xffffffff is the query). */
      rc = seccomp_rule_add(ctx, action, nr, 1, SCMP_A0_32(SCMP_CMP_NE, PERSONALITY_QUERY));
    else
      rc = seccomp_rule_add(ctx, action, nr, 0);
    if (rc < 0) filter_error(name, rc);
  }
  for (size_t k = 0; k < sizeof CLONE_NAMESPACE_FLAGS / sizeof CLONE_NAMESPACE_FLAGS[0]; k++) {
    uint64_t flag = CLONE_NAMESPACE_FLAGS[k];
    rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                          SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag));
    if (rc < 0) filter_error("clone", rc);
  }
  /* Sets no_new_privs first (libseccomp's default), which an unprivileged process needs. */
  rc = seccomp_load(ctx);
  if (rc < 0) filter_error("seccomp_load", rc);
  seccomp_release(ctx);
}

/* Everything the untrusted command must not inherit or reach, in that order: the keyring join is
 * itself a keyctl call, which the filter then denies. */
static void confine_untrusted(void) {
  if (!seccomp_deny) return;
  join_fresh_session_keyring();
  apply_syscall_filter(seccomp_deny);
}

/* ---- Disturbance evidence and page-cache residency (trusted side, never timed) ---- */

/* One CPU's accounting so far, in USER_HZ ticks from /proc/stat; ok = 0 when unreadable. */
struct cpu_sample {
  int ok;
  long long busy, steal;
};

/* tests/fixtures/host/sample-cpu.c reads a recorded file instead, to hold this parser to the
 * runner's (runner/host/proc-stat.ts) in tests/unit/proc-stat.test.ts. */
#ifndef PROC_STAT_PATH
#define PROC_STAT_PATH "/proc/stat"
#endif

/* Busy = user + nice + system + irq + softirq (guest time is already inside user). */
static struct cpu_sample sample_cpu(int cpu) {
  struct cpu_sample s = {0, 0, 0};
  if (cpu < 0) return s;
  FILE *f = fopen(PROC_STAT_PATH, "re");
  if (!f) return s;
  char want[32], line[512];
  int wlen = snprintf(want, sizeof want, "cpu%d ", cpu);
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "cpu", 3) != 0) break;
    if (strncmp(line, want, (size_t)wlen) != 0) continue;
    long long v[8] = {0};
    if (sscanf(line + wlen, "%lld %lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1], &v[2], &v[3],
               &v[4], &v[5], &v[6], &v[7]) >= 7) {
      s.ok = 1;
      s.busy = v[0] + v[1] + v[2] + v[5] + v[6];
      s.steal = v[7];
    }
    break;
  }
  fclose(f);
  return s;
}

/* The tasks created in this pid namespace after its first two (our init and the command). */
static long long tasks_started_in_namespace(void) {
  FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "re");
  if (!f) return -1;
  long long last = -1;
  if (fscanf(f, "%lld", &last) != 1) last = -1;
  fclose(f);
  return last >= 2 ? last - 2 : -1;
}

struct residency {
  const char *path;
  long long pages, before, after;
};

static long long resident_pages(unsigned char *addr, size_t len, long long pages) {
  unsigned char *vec = malloc((size_t)pages);
  if (!vec) return -1;
  long long n = -1;
  if (mincore(addr, len, vec) == 0) {
    n = 0;
    for (long long i = 0; i < pages; i++) n += vec[i] & 1;
  }
  free(vec);
  return n;
}

/* Makes a file wholly resident in the page cache: counts its resident pages with mincore, and when
 * any is missing (a run evicted it, e.g. posix_fadvise DONTNEED) reads the whole file back in.
 * Nothing a program did to the page cache then reaches the next run. -1s when it cannot tell. */
static void ensure_resident(struct residency *r) {
  r->pages = r->before = r->after = -1;
  int fd = open(r->path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st;
  long page = sysconf(_SC_PAGESIZE);
  if (fstat(fd, &st) != 0 || st.st_size <= 0 || page <= 0) {
    if (st.st_size == 0) r->pages = r->before = r->after = 0;
    close(fd);
    return;
  }
  size_t len = (size_t)st.st_size;
  r->pages = (long long)((len + (size_t)page - 1) / (size_t)page);
  void *addr = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
  if (addr == MAP_FAILED) {
    close(fd);
    return;
  }
  r->before = resident_pages(addr, len, r->pages);
  r->after = r->before;
  if (r->before >= 0 && r->before < r->pages) {
    static char buf[1 << 20];
    off_t off = 0;
    ssize_t n;
    while ((n = pread(fd, buf, sizeof buf, off)) > 0) off += n;
    r->after = resident_pages(addr, len, r->pages);
  }
  munmap(addr, len);
  close(fd);
}

static void print_accounting_json(FILE *f, struct cpu_sample start, struct cpu_sample end,
                                  long long tasks, const struct residency *res, int nres) {
  int have = start.ok && end.ok;
  fprintf(f, ",\"clockTicks\":%ld,\"cpuBusyTicks\":%lld,\"cpuStealTicks\":%lld,\"tasksStarted\":%lld",
          sysconf(_SC_CLK_TCK), have ? end.busy - start.busy : -1LL,
          have ? end.steal - start.steal : -1LL, tasks);
  fputs(",\"residency\":[", f);
  for (int k = 0; k < nres; k++)
    fprintf(f, "%s{\"pages\":%lld,\"before\":%lld,\"after\":%lld}", k ? "," : "", res[k].pages,
            res[k].before, res[k].after);
  fputs("]", f);
}

/* Inner mode: pid 1 of the sandbox. Runs the command as pid 2, reaps every process of the sandbox
 * (so their rusage reaches the outer helper through bwrap's wait), kills what is left when the
 * command ends or when the host asks, and reports the command's exact status on the notify pipe
 * (bwrap alone could only pass on 128+signal, which a plain exit code can imitate). */
static int inner_main(int notify_fd, const char *counter_list, char **argv) {
  int keep[1] = {notify_fd};
  close_fds_except(keep, 1);
  struct counter counters[MAX_COUNTERS];
  int ncounters = counter_list ? parse_counters(counter_list, counters) : 0;
  /* Same uid as the untrusted code: not dumpable, so it cannot ptrace us or open our fds. */
  if (prctl(PR_SET_DUMPABLE, 0) != 0) die("prctl");
  if (getpid() != 1) {
    /* Its kill(-1) is meant for a pid namespace of its own; anywhere else it would reach the host. */
    fprintf(stderr, "sandbox-helper: --inner is only for pid 1 of a sandbox\n");
    _exit(125);
  }
  if (fcntl(notify_fd, F_SETFD, FD_CLOEXEC) != 0) die("fcntl");
  sigset_t mask, oldmask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGCHLD);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGHUP);
  if (sigprocmask(SIG_BLOCK, &mask, &oldmask) != 0) die("sigprocmask");
  int sfd = signalfd(-1, &mask, SFD_CLOEXEC);
  if (sfd < 0) die("signalfd");
  int sync[2] = {-1, -1};
  if (ncounters > 0) sync_socket(sync);
  pid_t cmd = fork();
  if (cmd < 0) die("fork");
  if (cmd == 0) {
    sigprocmask(SIG_SETMASK, &oldmask, NULL);
    if (ncounters > 0) {
      close(sync[0]);
      await_counters(sync[1]);
    }
    confine_untrusted();
    /* The clock starts here, after the counters are attached: their set-up is not timed. */
    if (write(notify_fd, "R", 1) != 1) _exit(125);
    execvp(argv[0], argv);
    int e = errno;
    fprintf(stderr, "sandbox: cannot execute %s: %s\n", argv[0], strerror(e));
    _exit(e == ENOENT ? 127 : 126);
  }
  if (ncounters > 0) attach_counters(sync, counters, ncounters, cmd);
  int status = 0, cmd_done = 0, killing = 0, host_gone = 0;
  for (;;) {
    /* The outer helper holds the only read end of the notify pipe: POLLERR on our write end means
     * it is gone, and a sandbox nobody times must not live on. */
    struct pollfd fds[2] = {{.fd = sfd, .events = POLLIN}, {.fd = notify_fd, .events = 0}};
    if (poll(fds, host_gone ? 1 : 2, -1) < 0) {
      if (errno == EINTR) continue;
      die("poll");
    }
    if (!host_gone && fds[1].revents) {
      host_gone = 1;
      killing = 1;
    }
    struct signalfd_siginfo si;
    ssize_t n = fds[0].revents ? read(sfd, &si, sizeof si) : 0;
    if (n < 0 && errno != EINTR) die("signalfd");
    /* Only the host (a sender outside this pid namespace shows as pid 0) may stop the sandbox. */
    if (n == (ssize_t)sizeof si && si.ssi_signo != SIGCHLD && si.ssi_pid == 0) killing = 1;
    for (;;) {
      int st;
      pid_t w = waitpid(-1, &st, WNOHANG | __WALL);
      if (w <= 0) {
        if (w < 0 && errno == ECHILD && cmd_done) goto done;
        break;
      }
      if (w == cmd) {
        status = st;
        cmd_done = 1;
      }
    }
    if (cmd_done || killing) {
      /* The command is the sandbox: whatever it left behind (daemons, setsid children) goes too. */
      kill(-1, SIGKILL);
      if (!cmd_done) kill(cmd, SIGKILL);
    }
  }
done:;
  if (host_gone) _exit(125);
  char msg[32];
  int len = WIFSIGNALED(status) ? snprintf(msg, sizeof msg, "S%d\n", WTERMSIG(status))
                                : snprintf(msg, sizeof msg, "X%d\n", WEXITSTATUS(status));
  /* The status first: its arrival stops the clock, and reading the counters is not the command's. */
  if (write(notify_fd, msg, (size_t)len) != len) _exit(125);
  char lines[NOTIFY_BUF_SIZE / 2];
  size_t n = 0;
  if (ncounters > 0) {
    read_counters(counters, ncounters);
    n = format_counter_lines(lines, sizeof lines, counters, ncounters);
  }
  int w = snprintf(lines + n, sizeof lines - n, "T %lld\n", tasks_started_in_namespace());
  if (w > 0 && (size_t)w < sizeof lines - n) n += (size_t)w;
  /* One write below PIPE_BUF: the outer helper sees all of it or none. */
  if (n > 0 && write(notify_fd, lines, n) != (ssize_t)n) _exit(125);
  _exit(WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status));
}

static void set_limit(int resource, long long value, const char *name) {
  struct rlimit rl = {(rlim_t)value, (rlim_t)value};
  if (setrlimit(resource, &rl) != 0) die(name);
}

static void write_file(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) die(path);
  ssize_t n = write(fd, text, strlen(text));
  if (n != (ssize_t)strlen(text)) die(path);
  close(fd);
}

/* Moves fd `from` to exactly `to`, leaving it inheritable. */
static void place_fd(int from, int to) {
  if (from == to) {
    if (fcntl(to, F_SETFD, 0) != 0) die("fcntl");
  } else {
    if (dup2(from, to) < 0) die("dup2");
    close(from);
  }
}

/* --stage-dir: see the header. Runs in the child, as root, before the uid change. */
static void stage_sources(const char *dir, const char **sources, int n) {
  int fds[MAX_STAGED];
  if (unshare(CLONE_NEWNS) != 0) die("unshare(CLONE_NEWNS) for --stage-dir");
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) die("mount --make-rprivate /");
  /* Opened in the new namespace (a bind's source must be one of its mounts), before the tmpfs
   * covers DIR, so every path resolves as on the host. */
  for (int k = 0; k < n; k++) {
    fds[k] = open(sources[k], O_PATH | O_CLOEXEC);
    if (fds[k] < 0) die(sources[k]);
  }
  if (mount("perfjudge-stage", dir, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=64k") != 0)
    die(dir);
  for (int k = 0; k < n; k++) {
    char point[4096], source[64];
    struct stat st;
    if (fstat(fds[k], &st) != 0) die(sources[k]);
    snprintf(point, sizeof point, "%s/%d", dir, k);
    if (S_ISDIR(st.st_mode)) {
      if (mkdir(point, 0755) != 0) die(point);
    } else {
      int f = open(point, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
      if (f < 0) die(point);
      close(f);
    }
    /* The descriptor's own file, whatever its path: no lookup through the folders above it. */
    snprintf(source, sizeof source, "/proc/self/fd/%d", fds[k]);
    if (mount(source, point, NULL, MS_BIND | MS_REC, NULL) != 0) die(sources[k]);
    close(fds[k]);
  }
}

/* Parses bwrap's --info-fd JSON just enough to find "child-pid": N. */
static pid_t parse_child_pid(const char *buf) {
  const char *p = strstr(buf, "\"child-pid\"");
  if (!p) return 0;
  p = strchr(p, ':');
  if (!p) return 0;
  long v = strtol(p + 1, NULL, 10);
  return v > 1 ? (pid_t)v : 0;
}

int main(int argc, char **argv) {
  int report_fd = -1, notify_fd = -1, info_fd = -1, exe_fd = -1, cpu = -1, kill_all = 0;
  int inner_fd = -1, outer_options = 0;
  const char *report_file = NULL, *counter_list = NULL;
  const char *cgroups[MAX_CGROUPS];
  int ncgroups = 0;
  struct residency resident[MAX_RESIDENT];
  int nresident = 0;
  const char *stage_dir = NULL, *staged[MAX_STAGED];
  int nstaged = 0;
  long long rl_as = -1, rl_fsize = -1, rl_nproc = -1, uid = -1, gid = -1;
  long long time_limit_ms = 0, setup_limit_ms = 0;
  int i = 1;
  for (; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) {
      i++;
      break;
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "sandbox-helper: %s needs a value\n", a);
      return 125;
    }
    const char *v = argv[++i];
    if (strcmp(a, "--inner") == 0) {
      inner_fd = (int)parse_num(v, a);
      continue;
    }
    if (strcmp(a, "--counters") == 0) {
      counter_list = v;
      continue;
    }
    if (strcmp(a, "--seccomp-deny") == 0) {
      seccomp_deny = v;
      continue;
    }
    outer_options++;
    if (strcmp(a, "--report-fd") == 0) report_fd = (int)parse_num(v, a);
    else if (strcmp(a, "--report-file") == 0) report_file = v;
    else if (strcmp(a, "--cgroup-procs") == 0) {
      if (ncgroups == MAX_CGROUPS) {
        fprintf(stderr, "sandbox-helper: too many cgroups\n");
        return 125;
      }
      cgroups[ncgroups++] = v;
    } else if (strcmp(a, "--resident") == 0) {
      if (nresident == MAX_RESIDENT) {
        fprintf(stderr, "sandbox-helper: too many --resident files\n");
        return 125;
      }
      resident[nresident++] = (struct residency){.path = v};
    } else if (strcmp(a, "--stage") == 0) {
      if (nstaged == MAX_STAGED) {
        fprintf(stderr, "sandbox-helper: too many --stage paths\n");
        return 125;
      }
      staged[nstaged++] = v;
    } else if (strcmp(a, "--stage-dir") == 0) stage_dir = v;
    else if (strcmp(a, "--cpu") == 0) cpu = (int)parse_num(v, a);
    else if (strcmp(a, "--rlimit-as") == 0) rl_as = parse_num(v, a);
    else if (strcmp(a, "--rlimit-fsize") == 0) rl_fsize = parse_num(v, a);
    else if (strcmp(a, "--rlimit-nproc") == 0) rl_nproc = parse_num(v, a);
    else if (strcmp(a, "--uid") == 0) uid = parse_num(v, a);
    else if (strcmp(a, "--gid") == 0) gid = parse_num(v, a);
    else if (strcmp(a, "--exe-fd") == 0) exe_fd = (int)parse_num(v, a);
    else if (strcmp(a, "--notify-fd") == 0) notify_fd = (int)parse_num(v, a);
    else if (strcmp(a, "--info-fd") == 0) info_fd = (int)parse_num(v, a);
    else if (strcmp(a, "--time-limit-ms") == 0) time_limit_ms = parse_num(v, a);
    else if (strcmp(a, "--setup-limit-ms") == 0) setup_limit_ms = parse_num(v, a);
    else if (strcmp(a, "--kill-all") == 0) kill_all = (int)parse_num(v, a);
    else {
      fprintf(stderr, "sandbox-helper: unknown option %s\n", a);
      return 125;
    }
  }
  if (i >= argc) {
    fprintf(stderr, "sandbox-helper: no command\n");
    return 125;
  }
  char **cmd = argv + i;
  if (inner_fd >= 0) {
    if (outer_options || !seccomp_deny) {
      fprintf(stderr, "sandbox-helper: --inner N --seccomp-deny LIST [--counters LIST] -- COMMAND\n");
      return 125;
    }
    return inner_main(inner_fd, counter_list, cmd);
  }
  /* Behind bwrap the command is not our child: the inner init counts it and reports to us. */
  struct counter counters[MAX_COUNTERS];
  int ncounters = counter_list && notify_fd < 0 ? parse_counters(counter_list, counters) : 0;
  /* Behind bwrap, a pinned run's CPU migrations are counted here, on bwrap's tree: the inner init
   * runs unprivileged in the sandbox's user namespace, where kernel-only events are refused. */
  int outer_migrations = notify_fd >= 0 && cpu >= 0;
  if (outer_migrations) ncounters = parse_counters("cpu-migrations", counters);
  if (kill_all && getpid() != 1) {
    /* kill(-1) anywhere but in a container's own pid namespace would hit the whole host. */
    fprintf(stderr, "sandbox-helper: --kill-all is only for pid 1\n");
    return 125;
  }
  if (seccomp_deny && notify_fd >= 0) {
    /* The child is bwrap then, which needs namespaces: the inner init confines the command. */
    fprintf(stderr, "sandbox-helper: --seccomp-deny is for the inner init when --notify-fd is set\n");
    return 125;
  }
  if (nstaged > 0 && !stage_dir) {
    fprintf(stderr, "sandbox-helper: --stage needs --stage-dir\n");
    return 125;
  }
  if ((uid < 0) != (gid < 0)) {
    fprintf(stderr, "sandbox-helper: --uid and --gid go together\n");
    return 125;
  }

  FILE *report = NULL;
  if (report_file) {
    int fd = open(report_file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) die(report_file);
    report = fdopen(fd, "w");
  } else if (report_fd >= 0) {
    if (fcntl(report_fd, F_SETFD, FD_CLOEXEC) != 0) die("report fd");
    report = fdopen(report_fd, "w");
  } else {
    fprintf(stderr, "sandbox-helper: --report-fd or --report-file is required\n");
    return 125;
  }
  if (!report) die("report");

  /* If the runner dies, so do we, and so (through bwrap's --die-with-parent) does the sandbox. */
  pid_t runner = getppid();
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) die("prctl");
  if (getppid() != runner) return 125;
  /* Not dumpable: a same-uid process (Docker mode) cannot ptrace us to forge the report. */
  if (prctl(PR_SET_DUMPABLE, 0) != 0) die("prctl");

  /* Bigger pipes keep a fast writer from stalling on the runner's reads (timed runs). */
  fcntl(1, F_SETPIPE_SZ, 1 << 20);
  fcntl(2, F_SETPIPE_SZ, 1 << 16);

  sigset_t mask, oldmask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGCHLD);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGHUP);
  if (sigprocmask(SIG_BLOCK, &mask, &oldmask) != 0) die("sigprocmask");
  int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sfd < 0) die("signalfd");

  int notify_pipe[2] = {-1, -1}, info_pipe[2] = {-1, -1};
  if (notify_fd >= 0 && pipe2(notify_pipe, O_CLOEXEC) != 0) die("pipe");
  if (info_fd >= 0 && pipe2(info_pipe, O_CLOEXEC) != 0) die("pipe");
  int sync[2] = {-1, -1};
  if (ncounters > 0) {
    sync_socket(sync);
    /* Out of the way of the fixed descriptor numbers the child places (--exe-fd, --notify-fd…). */
    for (int k = 0; k < 2; k++) {
      int high = fcntl(sync[k], F_DUPFD_CLOEXEC, 100);
      if (high < 0) die("fcntl");
      close(sync[k]);
      sync[k] = high;
    }
  }

  /* Before anything is timed: the files the command reads start wholly in the page cache. */
  for (int k = 0; k < nresident; k++) ensure_resident(&resident[k]);

  int64_t t_fork = now_ns();
  pid_t pid = fork();
  if (pid < 0) die("fork");
  if (pid == 0) {
    sigprocmask(SIG_SETMASK, &oldmask, NULL);
    char buf[32];
    snprintf(buf, sizeof buf, "%d", (int)getpid());
    for (int c = 0; c < ncgroups; c++) write_file(cgroups[c], buf);
    if (cpu >= 0) {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(cpu, &set);
      if (sched_setaffinity(0, sizeof set, &set) != 0) die("sched_setaffinity");
    }
    set_limit(RLIMIT_CORE, 0, "RLIMIT_CORE");
    if (rl_as >= 0) set_limit(RLIMIT_AS, rl_as, "RLIMIT_AS");
    if (rl_fsize >= 0) set_limit(RLIMIT_FSIZE, rl_fsize, "RLIMIT_FSIZE");
    if (rl_nproc >= 0) set_limit(RLIMIT_NPROC, rl_nproc, "RLIMIT_NPROC");
    int keep[MAX_KEEP];
    int nkeep = 0;
    if (exe_fd >= 0) {
      int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
      if (fd < 0) die("/proc/self/exe");
      place_fd(fd, exe_fd);
      keep[nkeep++] = exe_fd;
    }
    if (notify_fd >= 0) {
      place_fd(notify_pipe[1], notify_fd);
      keep[nkeep++] = notify_fd;
    }
    if (info_fd >= 0) {
      place_fd(info_pipe[1], info_fd);
      keep[nkeep++] = info_fd;
    }
    if (ncounters > 0) {
      close(sync[0]);
      keep[nkeep++] = sync[1];
    }
    close_fds_except(keep, nkeep);
    if (stage_dir) stage_sources(stage_dir, staged, nstaged);
    if (uid >= 0) {
      if (setgroups(0, NULL) != 0) die("setgroups");
      if (setresgid((gid_t)gid, (gid_t)gid, (gid_t)gid) != 0) die("setresgid");
      if (setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) != 0) die("setresuid");
      /* Changing uid clears the permitted and effective sets; clear the inheritable one too. */
      struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
      struct __user_cap_data_struct data[2];
      memset(data, 0, sizeof data);
      if (syscall(SYS_capset, &hdr, data) != 0) die("capset");
    }
    /* Set after the uid change, which would clear it. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) die("prctl");
    /* After the uid change too: it makes us undumpable again, and the counters need us dumpable. */
    if (ncounters > 0) await_counters(sync[1]);
    confine_untrusted();
    execvp(cmd[0], cmd);
    fprintf(stderr, "sandbox-helper: cannot execute %s: %s\n", cmd[0], strerror(errno));
    _exit(127);
  }
  if (notify_pipe[1] >= 0) close(notify_pipe[1]);
  if (info_pipe[1] >= 0) close(info_pipe[1]);
  if (ncounters > 0) attach_counters(sync, counters, ncounters, pid);

  /* Without an inner init, the command is our child: its clock starts once it may exec. */
  int64_t t_exec = notify_fd >= 0 ? -1 : now_ns(), t_end = -1;
  /* The pinned CPU's accounting over the timed span: what ran there besides the command. */
  struct cpu_sample cpu_start = notify_fd >= 0 ? (struct cpu_sample){0, 0, 0} : sample_cpu(cpu);
  struct cpu_sample cpu_end = {0, 0, 0};
  long long tasks_started = -1;
  int notify_open = notify_pipe[0] >= 0, info_open = info_pipe[0] >= 0;
  char notify_buf[NOTIFY_BUF_SIZE], info_buf[1024];
  size_t notify_len = 0, info_len = 0;
  pid_t sandbox_init = 0;
  const char *killed = NULL;
  int kill_stage = 0; /* 1: asked the sandbox's init, 2: killed it, 3: killed bwrap */
  int64_t kill_at = 0;
  int status = 0, done = 0;
  int64_t done_at = 0;

  while (!done || notify_open || info_open) {
    int64_t t = now_ns();
    /* bwrap is gone; its pipes close with it unless something survived, which we do not wait on. */
    if (done && t - done_at > 2000000000LL) break;
    if (!killed) {
      int64_t deadline = -1;
      if (t_exec >= 0 && time_limit_ms > 0) deadline = t_exec + time_limit_ms * 1000000;
      else if (t_exec < 0 && setup_limit_ms > 0) deadline = t_fork + setup_limit_ms * 1000000;
      if (deadline >= 0 && t >= deadline && !done) {
        killed = t_exec >= 0 ? "time" : "setup-time";
        kill_at = t - 1000000000LL; /* escalate now */
      }
    }
    if (killed && !done && kill_stage < 3 && t - kill_at >= 1000000000LL) {
      /* Ask the sandbox's init first (it kills and reaps the tree, so the rusage stays whole);
       * if it does not finish within a second, kill it, then bwrap. */
      kill_stage++;
      if (kill_stage == 1 && sandbox_init > 0) kill(sandbox_init, SIGTERM);
      else if (kill_stage <= 2 && sandbox_init > 0) kill(sandbox_init, SIGKILL);
      else {
        kill(pid, SIGKILL);
        if (kill_all) kill(-1, SIGKILL);
        kill_stage = 3;
      }
      kill_at = t;
    }
    int timeout_ms = -1;
    if (done || (killed && kill_stage < 3)) timeout_ms = 100;
    else if (!killed && !done) {
      if (t_exec >= 0 && time_limit_ms > 0)
        timeout_ms = (int)((t_exec + time_limit_ms * 1000000 - t + 999999) / 1000000);
      else if (t_exec < 0 && setup_limit_ms > 0)
        timeout_ms = (int)((t_fork + setup_limit_ms * 1000000 - t + 999999) / 1000000);
      if (timeout_ms < 0) timeout_ms = 0;
    }
    struct pollfd fds[3];
    int nfds = 0, notify_idx = -1, info_idx = -1;
    fds[nfds++] = (struct pollfd){.fd = sfd, .events = POLLIN};
    if (notify_open) {
      notify_idx = nfds;
      fds[nfds++] = (struct pollfd){.fd = notify_pipe[0], .events = POLLIN};
    }
    if (info_open) {
      info_idx = nfds;
      fds[nfds++] = (struct pollfd){.fd = info_pipe[0], .events = POLLIN};
    }
    int r = poll(fds, (nfds_t)nfds, timeout_ms);
    if (r < 0) {
      if (errno == EINTR) continue;
      die("poll");
    }
    if (notify_idx >= 0 && fds[notify_idx].revents) {
      ssize_t n = read(notify_pipe[0], notify_buf + notify_len, sizeof notify_buf - 1 - notify_len);
      if (n > 0) {
        if (t_exec < 0 && notify_buf[0] == 'R') {
          t_exec = now_ns();
          cpu_start = sample_cpu(cpu);
        }
        notify_len += (size_t)n;
        notify_buf[notify_len] = 0;
        /* The command's status line marks its end more closely than bwrap's own exit does. */
        if (t_end < 0 && strchr(notify_buf, '\n')) {
          t_end = now_ns();
          cpu_end = sample_cpu(cpu);
        }
      }
      if (n <= 0 || notify_len >= sizeof notify_buf - 1) {
        close(notify_pipe[0]);
        notify_open = 0;
      }
    }
    if (info_idx >= 0 && fds[info_idx].revents) {
      /* Read it all: bwrap dies of SIGPIPE if this pipe closes before it has written everything. */
      char tmp[512];
      ssize_t n = read(info_pipe[0], tmp, sizeof tmp);
      if (n > 0) {
        size_t take = (size_t)n;
        if (take > sizeof info_buf - 1 - info_len) take = sizeof info_buf - 1 - info_len;
        memcpy(info_buf + info_len, tmp, take);
        info_len += take;
        info_buf[info_len] = 0;
        if (!sandbox_init) sandbox_init = parse_child_pid(info_buf);
      } else {
        close(info_pipe[0]);
        info_open = 0;
      }
    }
    if (fds[0].revents) {
      struct signalfd_siginfo si;
      while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
        if (si.ssi_signo != SIGCHLD && !killed && !done) {
          killed = "aborted";
          kill_at = now_ns() - 1000000000LL;
        }
      }
      /* Reap everything: as a container's pid 1 orphans come to us, and their rusage counts. */
      for (;;) {
        int st;
        pid_t w = waitpid(-1, &st, WNOHANG | __WALL);
        if (w <= 0) break;
        if (w == pid) {
          status = st;
          done = 1;
          done_at = now_ns();
        }
      }
    }
  }

  if (kill_all) {
    /* As a container's pid 1, leave nothing behind that could outlive the report. */
    kill(-1, SIGKILL);
    while (waitpid(-1, NULL, __WALL) > 0 || errno == EINTR) {
    }
  }
  struct rusage ru;
  if (getrusage(RUSAGE_CHILDREN, &ru) != 0) die("getrusage");
  if (ncounters > 0) read_counters(counters, ncounters);

  /* The command's own status, from the sandbox's init; else what bwrap (or the command) gave. */
  int cmd_exited = WIFEXITED(status), cmd_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  int cmd_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  const char *line = notify_len > 0 && notify_buf[0] == 'R' ? notify_buf + 1 : NULL;
  int from_init = 0;
  if (line && (line[0] == 'X' || line[0] == 'S') && strchr(line, '\n')) {
    long v = strtol(line + 1, NULL, 10);
    from_init = 1;
    cmd_exited = line[0] == 'X';
    cmd_code = cmd_exited ? (int)v : -1;
    cmd_signal = cmd_exited ? 0 : (int)v;
    /* The inner init's counters follow its status line. */
    if (notify_fd >= 0) {
      struct counter migrations = counters[0];
      ncounters = parse_counter_lines(strchr(line, '\n') + 1, counters);
      if (outer_migrations) ncounters = replace_counter(counters, ncounters, migrations);
    }
    const char *t = strstr(line, "\nT ");
    if (t) tasks_started = strtoll(t + 3, NULL, 10);
  }

  if (report_file && ftruncate(fileno(report), 0) != 0) die("ftruncate");
  if (t_end < 0) {
    t_end = now_ns();
    cpu_end = sample_cpu(cpu);
  }
  int64_t wall_ns = t_end - (t_exec >= 0 ? t_exec : t_fork);
  int64_t setup_ns = (t_exec >= 0 ? t_exec : t_end) - t_fork;
  fprintf(report,
          "{\"exited\":%s,\"exitCode\":%d,\"termSignal\":%d,\"statusFromInit\":%s,"
          "\"execStarted\":%s,\"killed\":%s%s%s,"
          "\"wallNs\":%" PRId64 ",\"setupNs\":%" PRId64 ",\"userUs\":%lld,\"sysUs\":%lld,"
          "\"maxRssKb\":%ld,\"minorFaults\":%ld,\"majorFaults\":%ld,\"voluntaryCtxSwitches\":%ld,"
          "\"involuntaryCtxSwitches\":%ld",
          cmd_exited ? "true" : "false", cmd_code, cmd_signal, from_init ? "true" : "false",
          t_exec >= 0 ? "true" : "false", killed ? "\"" : "", killed ? killed : "null",
          killed ? "\"" : "", wall_ns, setup_ns,
          (long long)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec,
          (long long)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec, ru.ru_maxrss, ru.ru_minflt,
          ru.ru_majflt, ru.ru_nvcsw, ru.ru_nivcsw);
  print_counters_json(report, counters, ncounters);
  print_accounting_json(report, cpu_start, cpu_end, tasks_started, resident, nresident);
  fputs("}\n", report);
  if (fflush(report) != 0) return 125;
  return 0;
}

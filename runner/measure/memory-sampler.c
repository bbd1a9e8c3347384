/* memory-sampler: runs one command and samples its memory from /proc every few milliseconds.
 * Built on first use by runner/measure/memory-profile.ts; runs inside the sandbox as its command.
 *
 *   memory-sampler [--thp-from rollup|smaps|none] INTERVAL_US OUT_FILE -- COMMAND [ARGS...]
 *
 * OUT_FILE (created, must not exist) receives
 *   # memory-sampler 1 interval_us=N thp=rollup|smaps|none
 *   T_MS RSS_KIB VM_KIB ANON_KIB THP_KIB          one line per sample, T_MS from just before the fork
 *   end T_MS xCODE|sSIGNAL THP_READS              once the command has ended
 *
 * VmRSS, VmSize and RssAnon come from /proc/PID/status, read every interval by the main thread: the
 * kernel keeps them as counters, so a read costs microseconds whatever the size. AnonHugePages comes
 * from /proc/PID/smaps_rollup (or the sum over /proc/PID/smaps on kernels before 4.14), which walks
 * every resident page (measured on the development VM: from under 0.3 ms for 400 MiB idle to ~1.2 ms
 * for 60 MiB while the program ran on a loaded host), so tens of ms for GiBs. A second
 * thread reads it, pausing 19× as long as each read took (so it uses at most ~5% of a CPU); every
 * sample carries the latest figure. The main thread's schedule never waits for it.
 *
 * The command's stdin, stdout and stderr are ours; we exit with its status, or die of its signal.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum thp_source { THP_ROLLUP, THP_SMAPS, THP_NONE };
static const char *const THP_NAMES[] = {"rollup", "smaps", "none"};

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void fail(const char *what) {
  fprintf(stderr, "memory-sampler: %s: %s\n", what, strerror(errno));
  exit(125);
}

/* The value in kB of "Name:   123 kB" in a /proc text, or -1 when the field is absent. */
static long long field_kib(const char *text, const char *name) {
  size_t len = strlen(name);
  for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
    if (strncmp(p, name, len) == 0 && p[len] == ':') return strtoll(p + len + 1, NULL, 10);
  }
  return -1;
}

/* Reads a small /proc file from offset 0 of an fd kept open (no path lookup per sample). */
static ssize_t read_at_zero(int fd, char *buf, size_t size) {
  ssize_t n;
  do n = pread(fd, buf, size - 1, 0);
  while (n < 0 && errno == EINTR);
  buf[n > 0 ? n : 0] = '\0';
  return n;
}

static void sleep_until(int64_t deadline_ns) {
  struct timespec ts = {deadline_ns / 1000000000, deadline_ns % 1000000000};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
  }
}

struct thp_reader {
  enum thp_source source;
  char rollup_path[64];
  char smaps_path[64];
  int rollup_fd;
  int64_t interval_ns;
  _Atomic long long kib;
  _Atomic long long reads;
};

/* AnonHugePages summed over /proc/PID/smaps (one entry per mapping: only for old kernels). */
static long long smaps_thp_kib(const char *path) {
  FILE *f = fopen(path, "re");
  if (!f) return -1;
  char line[256];
  long long sum = 0;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "AnonHugePages:", 14) == 0) sum += strtoll(line + 14, NULL, 10);
  }
  fclose(f);
  return sum;
}

/* AnonHugePages from smaps_rollup. The open fd stays bound to the address space it was opened on,
 * so when the command execs again (reads fail), open the file afresh. */
static long long rollup_thp_kib(struct thp_reader *r) {
  static char buf[4096];
  if (r->rollup_fd >= 0 && read_at_zero(r->rollup_fd, buf, sizeof buf) > 0)
    return field_kib(buf, "AnonHugePages");
  if (r->rollup_fd >= 0) close(r->rollup_fd);
  r->rollup_fd = open(r->rollup_path, O_RDONLY | O_CLOEXEC);
  if (r->rollup_fd >= 0 && read_at_zero(r->rollup_fd, buf, sizeof buf) > 0)
    return field_kib(buf, "AnonHugePages");
  return -1;
}

/* Runs until the process exits (the main thread never joins it). */
static void *thp_loop(void *arg) {
  struct thp_reader *r = arg;
  for (;;) {
    int64_t start = now_ns();
    long long v = r->source == THP_ROLLUP ? rollup_thp_kib(r) : smaps_thp_kib(r->smaps_path);
    int64_t end = now_ns();
    if (v >= 0) {
      atomic_store(&r->kib, v);
      atomic_fetch_add(&r->reads, 1);
    }
    int64_t pause = (end - start) * 19;
    sleep_until(end + (pause > r->interval_ns ? pause : r->interval_ns));
  }
  return NULL;
}

/* Waits until the deadline or until the child ends, whichever is first. */
static void wait_tick(int pidfd, int64_t deadline_ns) {
  int64_t left = deadline_ns - now_ns();
  if (left <= 0) return;
  if (pidfd < 0) {
    sleep_until(deadline_ns);
    return;
  }
  struct timespec ts = {left / 1000000000, left % 1000000000};
  struct pollfd p = {.fd = pidfd, .events = POLLIN};
  ppoll(&p, 1, &ts, NULL);
}

int main(int argc, char **argv) {
  enum thp_source thp = THP_ROLLUP;
  int i = 1;
  if (i + 1 < argc && strcmp(argv[i], "--thp-from") == 0) {
    const char *v = argv[i + 1];
    if (strcmp(v, "rollup") == 0) thp = THP_ROLLUP;
    else if (strcmp(v, "smaps") == 0) thp = THP_SMAPS;
    else if (strcmp(v, "none") == 0) thp = THP_NONE;
    else {
      fprintf(stderr, "memory-sampler: --thp-from rollup|smaps|none\n");
      return 125;
    }
    i += 2;
  }
  if (argc - i < 4 || strcmp(argv[i + 2], "--") != 0) {
    fprintf(stderr,
            "usage: memory-sampler [--thp-from rollup|smaps|none] INTERVAL_US OUT_FILE -- COMMAND "
            "[ARGS...]\n");
    return 125;
  }
  char *end = NULL;
  long long interval_us = strtoll(argv[i], &end, 10);
  if (!end || *end || interval_us < 100 || interval_us > 1000000) {
    fprintf(stderr, "memory-sampler: INTERVAL_US must be 100..1000000\n");
    return 125;
  }
  const int64_t interval_ns = interval_us * 1000;
  char **cmd = argv + i + 3;

  /* O_EXCL and O_NOFOLLOW: the file is ours from the start, never a link planted beforehand. */
  int out_fd = open(argv[i + 1], O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (out_fd < 0) fail(argv[i + 1]);
  FILE *out = fdopen(out_fd, "w");
  if (!out) fail("fdopen");
  static char out_buf[1 << 16];
  setvbuf(out, out_buf, _IOFBF, sizeof out_buf);

  /* The child reports a failed exec through this pipe; a successful exec closes it (O_CLOEXEC). */
  int sync_pipe[2];
  if (pipe2(sync_pipe, O_CLOEXEC) != 0) fail("pipe");
  const int64_t t0 = now_ns();
  pid_t pid = fork();
  if (pid < 0) fail("fork");
  if (pid == 0) {
    close(sync_pipe[0]);
    execvp(cmd[0], cmd);
    int e = errno;
    fprintf(stderr, "memory-sampler: cannot execute %s: %s\n", cmd[0], strerror(e));
    (void)!write(sync_pipe[1], &e, sizeof e);
    _exit(e == ENOENT ? 127 : 126);
  }
  close(sync_pipe[1]);
  int exec_errno = 0;
  ssize_t got;
  do got = read(sync_pipe[0], &exec_errno, sizeof exec_errno);
  while (got < 0 && errno == EINTR);
  close(sync_pipe[0]);
  const int started = got == 0;

  /* Opened after the exec: smaps_rollup binds to the address space it sees at open time. */
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  int status_fd = started ? open(path, O_RDONLY | O_CLOEXEC) : -1;
  static struct thp_reader reader;
  reader.source = thp;
  reader.interval_ns = interval_ns;
  reader.rollup_fd = -1;
  snprintf(reader.rollup_path, sizeof reader.rollup_path, "/proc/%d/smaps_rollup", (int)pid);
  snprintf(reader.smaps_path, sizeof reader.smaps_path, "/proc/%d/smaps", (int)pid);
  if (status_fd < 0) thp = THP_NONE;
  if (thp == THP_ROLLUP) {
    reader.rollup_fd = open(reader.rollup_path, O_RDONLY | O_CLOEXEC);
    /* Kernels before 4.14 have no rollup; the per-mapping file has the same figure, slower. */
    if (reader.rollup_fd < 0) thp = errno == ENOENT ? THP_SMAPS : THP_NONE;
  }
  if (thp == THP_SMAPS && smaps_thp_kib(reader.smaps_path) < 0) thp = THP_NONE;
  reader.source = thp;
  pthread_t thread;
  if (thp != THP_NONE && pthread_create(&thread, NULL, thp_loop, &reader) != 0) thp = THP_NONE;
  int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);

  fprintf(out, "# memory-sampler 1 interval_us=%lld thp=%s\n", interval_us, THP_NAMES[thp]);
  static char buf[8192];
  long long samples = 0;
  int64_t next = now_ns();
  int status = 0;
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid || (w < 0 && errno != EINTR)) break;
    int64_t t = now_ns();
    if (status_fd >= 0 && read_at_zero(status_fd, buf, sizeof buf) > 0) {
      long long rss = field_kib(buf, "VmRSS"), vm = field_kib(buf, "VmSize");
      long long anon = field_kib(buf, "RssAnon");
      /* A zombie has no address space left (no Vm* lines): nothing to sample. */
      if (rss >= 0 && vm >= 0) {
        fprintf(out, "%.3f %lld %lld %lld %lld\n", (double)(t - t0) / 1e6, rss, vm,
                anon < 0 ? 0 : anon, atomic_load(&reader.kib));
        /* A run killed at its time limit loses at most the last ~100 ms of samples. */
        if (++samples % 20 == 0) fflush(out);
      }
    }
    next += interval_ns;
    /* Late (descheduled): start afresh from now rather than firing a burst of catch-up samples. */
    if (next < now_ns()) next = now_ns() + interval_ns;
    wait_tick(pidfd, next);
  }
  double end_ms = (double)(now_ns() - t0) / 1e6;
  long long reads = atomic_load(&reader.reads);
  if (WIFSIGNALED(status))
    fprintf(out, "end %.3f s%d %lld\n", end_ms, WTERMSIG(status), reads);
  else
    fprintf(out, "end %.3f x%d %lld\n", end_ms, WEXITSTATUS(status), reads);
  fclose(out);
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    _exit(128 + sig);
  }
  /* _exit: no stdio clean-up that could wait on a lock held by the reader thread mid-read. */
  _exit(WEXITSTATUS(status));
}

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
 *                            (bubblewrap copies it into the sandbox with --ro-bind-data)
 *     --notify-fd N          give the child the write end of the exec pipe at fd N; the inner mode
 *                            writes 'R' to it right before exec, which starts the clock
 *     --info-fd N            give the child the write end of bwrap's --info-fd pipe at fd N; its
 *                            "child-pid" is the sandbox's init, killed first so rusage stays whole
 *     --time-limit-ms N      kill the tree N ms after the command started
 *     --setup-limit-ms N     kill the tree if the command has not started after N ms
 *     --kill-all 1           (as pid 1 of a container) kill every remaining process at the end
 *   SIGTERM, SIGINT or SIGHUP to the helper kill the tree; the report is written all the same.
 *
 * Inner mode (inside the sandbox, as the sandbox's command):
 *   sandbox-helper --inner N -- COMMAND [ARGS...]
 *   closes every fd but 0-2, writes 'R' to fd N, and execs COMMAND (looked up on PATH).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CGROUPS 8
#define MAX_KEEP 4

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

/* Inner mode: pid 1 of the sandbox. Runs the command as pid 2, reaps every process of the sandbox
 * (so their rusage reaches the outer helper through bwrap's wait), kills what is left when the
 * command ends or when the host asks, and reports the command's exact status on the notify pipe
 * (bwrap alone could only pass on 128+signal, which a plain exit code can imitate). */
static int inner_main(int notify_fd, char **argv) {
  int keep[1] = {notify_fd};
  close_fds_except(keep, 1);
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
  pid_t cmd = fork();
  if (cmd < 0) die("fork");
  if (cmd == 0) {
    sigprocmask(SIG_SETMASK, &oldmask, NULL);
    if (write(notify_fd, "R", 1) != 1) _exit(125);
    execvp(argv[0], argv);
    int e = errno;
    fprintf(stderr, "sandbox: cannot execute %s: %s\n", argv[0], strerror(e));
    _exit(e == ENOENT ? 127 : 126);
  }
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
  if (write(notify_fd, msg, (size_t)len) != len) _exit(125);
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
  const char *report_file = NULL;
  const char *cgroups[MAX_CGROUPS];
  int ncgroups = 0;
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
      if (i + 1 >= argc || strcmp(argv[i + 1], "--") != 0 || i + 2 >= argc) {
        fprintf(stderr, "sandbox-helper: --inner N -- COMMAND\n");
        return 125;
      }
      return inner_main((int)parse_num(v, a), argv + i + 2);
    } else if (strcmp(a, "--report-fd") == 0) report_fd = (int)parse_num(v, a);
    else if (strcmp(a, "--report-file") == 0) report_file = v;
    else if (strcmp(a, "--cgroup-procs") == 0) {
      if (ncgroups == MAX_CGROUPS) {
        fprintf(stderr, "sandbox-helper: too many cgroups\n");
        return 125;
      }
      cgroups[ncgroups++] = v;
    } else if (strcmp(a, "--cpu") == 0) cpu = (int)parse_num(v, a);
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
  if (kill_all && getpid() != 1) {
    /* kill(-1) anywhere but in a container's own pid namespace would hit the whole host. */
    fprintf(stderr, "sandbox-helper: --kill-all is only for pid 1\n");
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
    close_fds_except(keep, nkeep);
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
    execvp(cmd[0], cmd);
    fprintf(stderr, "sandbox-helper: cannot execute %s: %s\n", cmd[0], strerror(errno));
    _exit(127);
  }
  if (notify_pipe[1] >= 0) close(notify_pipe[1]);
  if (info_pipe[1] >= 0) close(info_pipe[1]);

  int64_t t_exec = notify_fd >= 0 ? -1 : t_fork, t_end = -1;
  int notify_open = notify_pipe[0] >= 0, info_open = info_pipe[0] >= 0;
  char notify_buf[64], info_buf[1024];
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
        if (t_exec < 0 && notify_buf[0] == 'R') t_exec = now_ns();
        notify_len += (size_t)n;
        notify_buf[notify_len] = 0;
        /* The command's status line marks its end more closely than bwrap's own exit does. */
        if (t_end < 0 && strchr(notify_buf, '\n')) t_end = now_ns();
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
  }

  if (report_file && ftruncate(fileno(report), 0) != 0) die("ftruncate");
  if (t_end < 0) t_end = now_ns();
  int64_t wall_ns = t_end - (t_exec >= 0 ? t_exec : t_fork);
  int64_t setup_ns = (t_exec >= 0 ? t_exec : t_end) - t_fork;
  fprintf(report,
          "{\"exited\":%s,\"exitCode\":%d,\"termSignal\":%d,\"statusFromInit\":%s,"
          "\"execStarted\":%s,\"killed\":%s%s%s,"
          "\"wallNs\":%" PRId64 ",\"setupNs\":%" PRId64 ",\"userUs\":%lld,\"sysUs\":%lld,"
          "\"maxRssKb\":%ld,\"minorFaults\":%ld,\"majorFaults\":%ld,\"voluntaryCtxSwitches\":%ld,"
          "\"involuntaryCtxSwitches\":%ld}\n",
          cmd_exited ? "true" : "false", cmd_code, cmd_signal, from_init ? "true" : "false",
          t_exec >= 0 ? "true" : "false", killed ? "\"" : "", killed ? killed : "null",
          killed ? "\"" : "", wall_ns, setup_ns,
          (long long)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec,
          (long long)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec, ru.ru_maxrss, ru.ru_minflt,
          ru.ru_majflt, ru.ru_nvcsw, ru.ru_nivcsw);
  if (fflush(report) != 0) return 125;
  return 0;
}

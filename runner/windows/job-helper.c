/*
 * perfjudge's Win32 job helper: runs one untrusted program inside a Job Object with limits and
 * reports what Windows accounted for it, measured from outside the program.
 *
 *   job-helper.exe --report FILE --memory BYTES --processes N --time-ms MS [--cpu N] -- PROGRAM ARGS...
 *
 * - The program is created suspended, put in a new job (kill on close, no breakaway, unhandled
 *   exceptions end the process instead of opening a debugger), then resumed: the clock
 *   (QueryPerformanceCounter) starts at the resume and stops when the program exits; whatever it
 *   left running is then killed with the job, as on Linux the sandbox's init kills the tree.
 * - Limits are set on the job (JOB_OBJECT_LIMIT_JOB_MEMORY, _ACTIVE_PROCESS) AND enforced by polling
 *   every few milliseconds (commit of every process of the job, active processes, wall time):
 *   Wine stores job limits without enforcing them, and the polling also names the limit that hit.
 * - The program inherits exactly our standard handles (stdin, stdout, stderr); the report goes to
 *   FILE, opened only after the job is empty, so nothing of the program can still write it.
 * - JSON report: wall time, user and kernel time (job totals, or the program's own when the job
 *   reports none), peak memory, page faults, I/O counts, exit code or exception, which limit.
 *
 * Built by the runner at start (runner/windows/job-helper-binary.ts): clang-cl on a Windows host,
 * x86_64-w64-mingw32-gcc for the emulated target (then it runs under Wine like the program).
 */
#define WIN32_LEAN_AND_MEAN
#define _WIN32_WINNT 0x0602
#include <windows.h>
#include <psapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define POLL_MS 5
#define MAX_JOB_PIDS 1024

typedef struct {
  const wchar_t *report;
  unsigned long long memory;
  unsigned long processes;
  unsigned long long timeMs;
  int cpu;
  int argStart; /* index in argv of PROGRAM */
} Options;

static void fail(const char *what) {
  fprintf(stderr, "job-helper: %s failed (error %lu)\n", what, GetLastError());
  ExitProcess(125);
}

static unsigned long long parseNumber(const wchar_t *s, const char *name) {
  wchar_t *end = NULL;
  unsigned long long v = wcstoull(s, &end, 10);
  if (!s[0] || (end && *end)) {
    fprintf(stderr, "job-helper: %s must be a number\n", name);
    ExitProcess(125);
  }
  return v;
}

static Options parseArgs(int argc, wchar_t **argv) {
  Options o = {NULL, 0, 0, 0, -1, -1};
  for (int i = 1; i < argc; i++) {
    const wchar_t *a = argv[i];
    if (wcscmp(a, L"--") == 0) {
      o.argStart = i + 1;
      break;
    }
    if (i + 1 >= argc) break;
    if (wcscmp(a, L"--report") == 0) o.report = argv[++i];
    else if (wcscmp(a, L"--memory") == 0) o.memory = parseNumber(argv[++i], "--memory");
    else if (wcscmp(a, L"--processes") == 0)
      o.processes = (unsigned long)parseNumber(argv[++i], "--processes");
    else if (wcscmp(a, L"--time-ms") == 0) o.timeMs = parseNumber(argv[++i], "--time-ms");
    else if (wcscmp(a, L"--cpu") == 0) o.cpu = (int)parseNumber(argv[++i], "--cpu");
    else {
      fwprintf(stderr, L"job-helper: unknown option %ls\n", a);
      ExitProcess(125);
    }
  }
  if (!o.report || !o.memory || !o.processes || !o.timeMs || o.argStart < 0 || o.argStart >= argc) {
    fprintf(stderr, "usage: job-helper --report FILE --memory BYTES --processes N --time-ms MS "
                    "[--cpu N] -- PROGRAM ARGS...\n");
    ExitProcess(125);
  }
  return o;
}

/* Appends one argument quoted the way CommandLineToArgvW and the C runtimes parse it back. */
static void appendQuoted(wchar_t *out, size_t cap, size_t *len, const wchar_t *arg) {
#define PUT(c)                                                                                     \
  do {                                                                                             \
    if (*len + 1 >= cap) {                                                                         \
      fprintf(stderr, "job-helper: command line too long\n");                                      \
      ExitProcess(125);                                                                            \
    }                                                                                              \
    out[(*len)++] = (c);                                                                           \
  } while (0)
  if (*len) PUT(L' ');
  if (arg[0] && !wcspbrk(arg, L" \t\n\v\"")) {
    for (const wchar_t *p = arg; *p; p++) PUT(*p);
    return;
  }
  PUT(L'"');
  for (const wchar_t *p = arg;; p++) {
    size_t backslashes = 0;
    while (*p == L'\\') {
      p++;
      backslashes++;
    }
    if (!*p) {
      for (size_t i = 0; i < backslashes * 2; i++) PUT(L'\\');
      break;
    }
    if (*p == L'"') {
      for (size_t i = 0; i < backslashes * 2 + 1; i++) PUT(L'\\');
    } else {
      for (size_t i = 0; i < backslashes; i++) PUT(L'\\');
    }
    PUT(*p);
  }
  PUT(L'"');
  out[*len] = 0;
#undef PUT
}

/* Sum of the private commit of every process still in the job, and the largest working set. */
static void jobMemory(HANDLE job, unsigned long long *commit, unsigned long long *peakWs,
                      unsigned long long *peakCommit) {
  static char buffer[sizeof(JOBOBJECT_BASIC_PROCESS_ID_LIST) + MAX_JOB_PIDS * sizeof(ULONG_PTR)];
  JOBOBJECT_BASIC_PROCESS_ID_LIST *list = (JOBOBJECT_BASIC_PROCESS_ID_LIST *)buffer;
  *commit = 0;
  if (!QueryInformationJobObject(job, JobObjectBasicProcessIdList, list, sizeof(buffer), NULL))
    return;
  for (DWORD i = 0; i < list->NumberOfProcessIdsInList; i++) {
    HANDLE p = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION | PROCESS_VM_READ, FALSE,
                           (DWORD)list->ProcessIdList[i]);
    if (!p) continue;
    PROCESS_MEMORY_COUNTERS_EX pmc;
    memset(&pmc, 0, sizeof(pmc));
    pmc.cb = sizeof(pmc);
    if (GetProcessMemoryInfo(p, (PROCESS_MEMORY_COUNTERS *)&pmc, sizeof(pmc))) {
      unsigned long long c = pmc.PrivateUsage ? pmc.PrivateUsage : pmc.PagefileUsage;
      *commit += c;
      if (pmc.PeakWorkingSetSize > *peakWs) *peakWs = pmc.PeakWorkingSetSize;
      if (pmc.PeakPagefileUsage > *peakCommit) *peakCommit = pmc.PeakPagefileUsage;
    }
    CloseHandle(p);
  }
}

static unsigned long long fileTimeUs(FILETIME t) {
  ULARGE_INTEGER u;
  u.LowPart = t.dwLowDateTime;
  u.HighPart = t.dwHighDateTime;
  return u.QuadPart / 10; /* 100 ns units */
}

/* NTSTATUS values a crashed Windows process exits with, by name. */
static const char *exceptionName(DWORD code) {
  switch (code) {
  case 0xC0000005: return "EXCEPTION_ACCESS_VIOLATION";
  case 0xC00000FD: return "EXCEPTION_STACK_OVERFLOW";
  case 0xC0000094: return "EXCEPTION_INT_DIVIDE_BY_ZERO";
  case 0xC000001D: return "EXCEPTION_ILLEGAL_INSTRUCTION";
  case 0xC0000096: return "EXCEPTION_PRIV_INSTRUCTION";
  case 0xC0000409: return "STATUS_STACK_BUFFER_OVERRUN";
  case 0xC0000374: return "STATUS_HEAP_CORRUPTION";
  case 0xC0000017: return "STATUS_NO_MEMORY";
  case 0xC000008C: return "EXCEPTION_ARRAY_BOUNDS_EXCEEDED";
  case 0xC000008E: return "EXCEPTION_FLT_DIVIDE_BY_ZERO";
  case 0x80000003: return "EXCEPTION_BREAKPOINT";
  case 0xC0000135: return "STATUS_DLL_NOT_FOUND";
  case 0xC0000142: return "STATUS_DLL_INIT_FAILED";
  default: return NULL;
  }
}

int wmain(int argc, wchar_t **argv) {
  Options o = parseArgs(argc, argv);

  static wchar_t cmdline[32768];
  size_t len = 0;
  cmdline[0] = 0;
  for (int i = o.argStart; i < argc; i++) appendQuoted(cmdline, 32768, &len, argv[i]);

  /* Crashes end the process with their status; no dialog, no debugger (inherited by the child). */
  SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX | SEM_NOOPENFILEERRORBOX);

  HANDLE job = CreateJobObjectW(NULL, NULL);
  if (!job) fail("CreateJobObject");
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits;
  memset(&limits, 0, sizeof(limits));
  limits.BasicLimitInformation.LimitFlags =
      JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION |
      JOB_OBJECT_LIMIT_JOB_MEMORY | JOB_OBJECT_LIMIT_ACTIVE_PROCESS;
  limits.BasicLimitInformation.ActiveProcessLimit = (DWORD)o.processes;
  limits.JobMemoryLimit = (SIZE_T)o.memory;
  if (o.cpu >= 0 && o.cpu < 64) {
    limits.BasicLimitInformation.LimitFlags |= JOB_OBJECT_LIMIT_AFFINITY;
    limits.BasicLimitInformation.Affinity = (ULONG_PTR)1 << o.cpu;
  }
  if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation, &limits, sizeof(limits)))
    fail("SetInformationJobObject");

  STARTUPINFOW si;
  memset(&si, 0, sizeof(si));
  si.cb = sizeof(si);
  si.dwFlags = STARTF_USESTDHANDLES;
  si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
  si.hStdOutput = GetStdHandle(STD_OUTPUT_HANDLE);
  si.hStdError = GetStdHandle(STD_ERROR_HANDLE);
  PROCESS_INFORMATION pi;
  if (!CreateProcessW(argv[o.argStart], cmdline, NULL, NULL, TRUE, CREATE_SUSPENDED, NULL, NULL,
                      &si, &pi)) {
    DWORD err = GetLastError();
    fprintf(stderr, "job-helper: cannot start the program (error %lu)\n", err);
    ExitProcess(126);
  }
  if (!AssignProcessToJobObject(job, pi.hProcess)) {
    TerminateProcess(pi.hProcess, 125);
    fail("AssignProcessToJobObject");
  }

  LARGE_INTEGER freq, start, now, end;
  QueryPerformanceFrequency(&freq);
  QueryPerformanceCounter(&start);
  ResumeThread(pi.hThread);
  CloseHandle(pi.hThread);

  const char *killed = NULL;
  unsigned long long peakCommit = 0, peakWs = 0, peakJob = 0, maxActive = 0;
  for (;;) {
    DWORD w = WaitForSingleObject(pi.hProcess, POLL_MS);
    QueryPerformanceCounter(&now);
    if (w == WAIT_OBJECT_0) break;
    unsigned long long commit = 0;
    jobMemory(job, &commit, &peakWs, &peakCommit);
    if (commit > peakJob) peakJob = commit;
    JOBOBJECT_BASIC_ACCOUNTING_INFORMATION acct;
    if (QueryInformationJobObject(job, JobObjectBasicAccountingInformation, &acct, sizeof(acct),
                                  NULL) &&
        acct.ActiveProcesses > maxActive)
      maxActive = acct.ActiveProcesses;
    unsigned long long elapsedMs =
        (unsigned long long)((now.QuadPart - start.QuadPart) * 1000 / freq.QuadPart);
    if (commit > o.memory) killed = "memory";
    else if (maxActive > o.processes) killed = "processes";
    else if (elapsedMs >= o.timeMs) killed = "time";
    if (killed) {
      TerminateJobObject(job, 0xC0000044 /* STATUS_QUOTA_EXCEEDED */);
      WaitForSingleObject(pi.hProcess, 5000);
      QueryPerformanceCounter(&now);
      break;
    }
  }
  end = now;
  /* Leftovers (children still running, detached or not) go with the job, as on Linux. */
  TerminateJobObject(job, 0xC000013A /* STATUS_CONTROL_C_EXIT */);

  DWORD exitCode = 0;
  GetExitCodeProcess(pi.hProcess, &exitCode);
  FILETIME created, exited, kernel, user;
  unsigned long long userUs = 0, kernelUs = 0;
  if (GetProcessTimes(pi.hProcess, &created, &exited, &kernel, &user)) {
    userUs = fileTimeUs(user);
    kernelUs = fileTimeUs(kernel);
  }
  PROCESS_MEMORY_COUNTERS_EX pmc;
  memset(&pmc, 0, sizeof(pmc));
  pmc.cb = sizeof(pmc);
  GetProcessMemoryInfo(pi.hProcess, (PROCESS_MEMORY_COUNTERS *)&pmc, sizeof(pmc));
  if (pmc.PeakWorkingSetSize > peakWs) peakWs = pmc.PeakWorkingSetSize;
  if (pmc.PeakPagefileUsage > peakCommit) peakCommit = pmc.PeakPagefileUsage;

  JOBOBJECT_BASIC_AND_IO_ACCOUNTING_INFORMATION jobAcct;
  memset(&jobAcct, 0, sizeof(jobAcct));
  int haveJobAcct = QueryInformationJobObject(job, JobObjectBasicAndIoAccountingInformation,
                                              &jobAcct, sizeof(jobAcct), NULL) != 0;
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION ext;
  memset(&ext, 0, sizeof(ext));
  QueryInformationJobObject(job, JobObjectExtendedLimitInformation, &ext, sizeof(ext), NULL);
  if (ext.PeakJobMemoryUsed > peakJob) peakJob = ext.PeakJobMemoryUsed;
  IO_COUNTERS io;
  memset(&io, 0, sizeof(io));
  if (haveJobAcct && (jobAcct.IoInfo.ReadOperationCount || jobAcct.IoInfo.WriteOperationCount))
    io = jobAcct.IoInfo;
  else
    GetProcessIoCounters(pi.hProcess, &io);

  /* Job totals cover every process of the tree; Wine reports none, then the program's own. */
  unsigned long long jobUserUs = haveJobAcct ? (unsigned long long)jobAcct.BasicInfo.TotalUserTime.QuadPart / 10 : 0;
  unsigned long long jobKernelUs = haveJobAcct ? (unsigned long long)jobAcct.BasicInfo.TotalKernelTime.QuadPart / 10 : 0;
  const char *timesFrom = "job";
  if (jobUserUs + jobKernelUs == 0) {
    jobUserUs = userUs;
    jobKernelUs = kernelUs;
    timesFrom = "process";
  }
  unsigned long totalProcesses = haveJobAcct ? jobAcct.BasicInfo.TotalProcesses : 0;
  if (haveJobAcct && jobAcct.BasicInfo.ActiveProcesses > maxActive)
    maxActive = jobAcct.BasicInfo.ActiveProcesses;
  unsigned long pageFaults = pmc.PageFaultCount;
  if (haveJobAcct && jobAcct.BasicInfo.TotalPageFaultCount > pageFaults)
    pageFaults = jobAcct.BasicInfo.TotalPageFaultCount;
  unsigned long long wallNs =
      (unsigned long long)((double)(end.QuadPart - start.QuadPart) * 1e9 / (double)freq.QuadPart);

  /* Written only now: the job is empty, nothing of the program can still reach the file. */
  HANDLE out = CreateFileW(o.report, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL,
                           NULL);
  if (out == INVALID_HANDLE_VALUE) fail("CreateFile(report)");
  char json[2048];
  const char *exception = exceptionName(exitCode);
  int n = snprintf(
      json, sizeof(json),
      "{\"version\":1,\"exitCode\":%lu,\"exception\":%s%s%s,\"killed\":%s%s%s,"
      "\"wallNs\":%llu,\"userUs\":%llu,\"kernelUs\":%llu,\"timesFrom\":\"%s\","
      "\"peakWorkingSetBytes\":%llu,\"peakCommitBytes\":%llu,\"peakJobCommitBytes\":%llu,"
      "\"pageFaults\":%lu,\"processes\":{\"total\":%lu,\"maxActive\":%llu},"
      "\"io\":{\"readOps\":%llu,\"writeOps\":%llu,\"otherOps\":%llu,\"readBytes\":%llu,"
      "\"writeBytes\":%llu,\"otherBytes\":%llu},\"qpcFrequency\":%lld}\n",
      (unsigned long)exitCode, exception ? "\"" : "", exception ? exception : "null",
      exception ? "\"" : "", killed ? "\"" : "", killed ? killed : "null", killed ? "\"" : "",
      wallNs, jobUserUs, jobKernelUs, timesFrom, peakWs, peakCommit, peakJob, pageFaults,
      totalProcesses, maxActive, io.ReadOperationCount, io.WriteOperationCount,
      io.OtherOperationCount, io.ReadTransferCount, io.WriteTransferCount, io.OtherTransferCount,
      (long long)freq.QuadPart);
  DWORD written = 0;
  if (n <= 0 || !WriteFile(out, json, (DWORD)n, &written, NULL) || written != (DWORD)n)
    fail("WriteFile(report)");
  CloseHandle(out);
  CloseHandle(pi.hProcess);
  CloseHandle(job);
  return 0;
}

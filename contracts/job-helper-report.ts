// What the Win32 job helper (runner/windows/job-helper.c) prints about one run: it crosses a process
// boundary (and, emulated, a Wine one), so the runner trusts none of it before this schema passed.
import { z } from 'zod';

const count = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

export const jobHelperReportSchema = z.strictObject({
  version: z.literal(1),
  /** GetExitCodeProcess: the exit status, or the NTSTATUS of a crash or of our TerminateJobObject. */
  exitCode: count.max(0xffffffff),
  /** The crash's name when exitCode is a known exception status (EXCEPTION_ACCESS_VIOLATION …). */
  exception: z
    .string()
    .regex(/^[A-Z0-9_]{1,64}$/)
    .nullable(),
  /** The limit the helper killed the job for. */
  killed: z.enum(['time', 'memory', 'processes']).nullable(),
  /** QueryPerformanceCounter from ResumeThread to the program's exit. */
  wallNs: count,
  userUs: count,
  kernelUs: count,
  /** 'job': totals of every process of the job; 'process': the program's own (Wine has no job totals). */
  timesFrom: z.enum(['job', 'process']),
  peakWorkingSetBytes: count,
  peakCommitBytes: count,
  /** Largest sum of private commit over the job's processes seen while polling. */
  peakJobCommitBytes: count,
  /** Windows counts soft and hard faults together. */
  pageFaults: count,
  processes: z.strictObject({ total: count, maxActive: count }),
  io: z.strictObject({
    readOps: count,
    writeOps: count,
    otherOps: count,
    readBytes: count,
    writeBytes: count,
    otherBytes: count,
  }),
  qpcFrequency: count,
});
export type JobHelperReport = z.infer<typeof jobHelperReportSchema>;

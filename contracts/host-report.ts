// The host report: what `perfjudge doctor` prints with --json, and what a runner measures at
// start-up and publishes in its heartbeat (the organizer console shows it). One verdict per check.
import { z } from 'zod';

const HOST_CHECK_VERDICTS = ['ok', 'warn', 'bad', 'unknown'] as const;
export const hostCheckVerdictSchema = z.enum(HOST_CHECK_VERDICTS);
export type HostCheckVerdict = z.infer<typeof hostCheckVerdictSchema>;

export const hostCheckSchema = z.strictObject({
  /** Stable id (kebab-case): 'governor', 'noise', 'cmake', … */
  id: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]*$/)
    .max(64),
  /** 'timing': what hurts measurements; 'memory': the benchmark definition's host conditions;
   *  'requirements': the tools the judge needs. */
  group: z.enum(['timing', 'memory', 'requirements']),
  title: z.string().max(200),
  verdict: hostCheckVerdictSchema,
  /** What was found, in words. */
  detail: z.string().max(2000),
  /** How to make it ok (a command where there is one); null when ok or nothing can be done. */
  fix: z.string().max(2000).nullable(),
});
export type HostCheck = z.infer<typeof hostCheckSchema>;

/** Run-to-run noise of the baseline on this host, pinned to the judge's CPU. */
export const hostNoiseSchema = z.strictObject({
  cpu: z.number().int().nonnegative(),
  runs: z.number().int().nonnegative(),
  inputBytes: z.number().int().nonnegative(),
  medianWallMs: z.number().nonnegative(),
  /** Coefficient of variation of the runs' wall times (and of their CPU times, user + sys). */
  wallCv: z.number().nonnegative(),
  cpuTimeCv: z.number().nonnegative(),
  /** Median (user + sys) / wall. */
  utilization: z.number().nonnegative(),
  /** Median time other tasks spent on the pinned CPU during one run (from /proc/stat). */
  otherTasksMs: z.number().nonnegative(),
  /** Median steal time on the pinned CPU during one run (a hypervisor running someone else). */
  stealMs: z.number().nonnegative(),
  durationMs: z.number().nonnegative(),
});
export type HostNoise = z.infer<typeof hostNoiseSchema>;

export const hostReportSchema = z.strictObject({
  measuredAt: z.iso.datetime(),
  /** The CPU the judge pins timed runs to, which the checks looked at. */
  cpu: z.number().int().nonnegative().nullable(),
  /** The worst verdict of the checks (unknown counts as ok: it is not a finding). */
  verdict: hostCheckVerdictSchema,
  checks: z.array(hostCheckSchema).max(64),
  noise: hostNoiseSchema.nullable(),
});
export type HostReport = z.infer<typeof hostReportSchema>;

const RANK: Record<HostCheckVerdict, number> = { unknown: 0, ok: 0, warn: 1, bad: 2 };

/** The worst of the verdicts: bad over warn over ok; only unknowns (or none) give ok. */
export function worstVerdict(verdicts: HostCheckVerdict[]): HostCheckVerdict {
  let worst: HostCheckVerdict = 'ok';
  for (const v of verdicts) if (RANK[v] > RANK[worst]) worst = v;
  return worst;
}

// The job helper's command line and its report file, the same for the native Job Object sandbox
// (windows-job-sandbox.ts) and for Wine (wine-sandbox.ts): only who starts the helper differs.
import { readFile } from 'node:fs/promises';
import { jobHelperReportSchema, type JobHelperReport } from '../../contracts';
import type { NormalizedRequest } from '../sandbox/request';

/** `--report FILE --memory B --processes N --time-ms MS [--cpu C] -- PROGRAM ARGS…` (job-helper.c). */
export function jobHelperArgs(
  reportFile: string,
  limits: NormalizedRequest['limits'],
  program: string[],
  cpu?: number,
): string[] {
  return [
    '--report',
    reportFile,
    '--memory',
    String(limits.memoryBytes),
    '--processes',
    String(limits.processes),
    '--time-ms',
    String(limits.wallTimeMs),
    ...(cpu !== undefined ? ['--cpu', String(cpu)] : []),
    '--',
    ...program,
  ];
}

/**
 * The report the helper wrote once the job was empty; `invalid` says what was wrong with one that
 * is there but unusable (null when there is none at all: the helper never got that far).
 */
export async function readJobHelperReport(
  file: string,
): Promise<{ report: JobHelperReport } | { report: null; invalid: string | null }> {
  const text = await readFile(file, 'utf8').catch(() => null);
  if (text === null) return { report: null, invalid: null };
  let data: unknown = null;
  try {
    data = JSON.parse(text);
  } catch {
    data = null;
  }
  const parsed = jobHelperReportSchema.safeParse(data);
  return parsed.success ? { report: parsed.data } : { report: null, invalid: parsed.error.message };
}

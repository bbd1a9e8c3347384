// AMD uProf on native Windows hosts: counters of a run come from AMDuProfCLI when it is installed,
// otherwise every asked-for counter is 'unsupported' (never 0).
//
// UNTESTED ON A REAL HOST: the development hosts have no Windows and no uProf. What is tested
// (tests/unit/uprof-csv.test.ts) is the pure part: finding the CLI, the argv of `collect` and
// `report`, and the parser of report.csv on hand-written fixtures. Running the two commands
// (collectUprofCounters) has never been executed. The runner never runs uProf on Linux or under
// Wine (emulated): the Windows job sandbox, the only caller, refuses to start off win32.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Counter } from '../../contracts';
import { MAX_REPORT_BYTES, parseUprofReport, UPROF_EVENT_TO_COUNTER } from './uprof-csv';
import { unsupportedCounters } from './unsupported-counters';

const execFileAsync = promisify(execFile);

/** How a run is counted by uProf: the CLI's path and the sampling interval of every event. */
export interface UprofRunner {
  cli: string;
  /** Events per sample; smaller is more precise and costs more (uProf's own default is 250000). */
  interval?: number;
}

/** Where uProf's installer puts the CLI (uProf's Readme: C:\Program Files\AMD\AMDuProf\bin). */
const DEFAULT_UPROF_CLI = 'C:\\Program Files\\AMD\\AMDuProf\\bin\\AMDuProfCLI.exe';

/**
 * The CLI to use: the configured path if given (it must exist: a wrong setting is an error in the
 * log, not a silent fallback), else AMDuProfCLI.exe on `searchPath` (the caller passes PATH: this
 * module reads no environment), else the installer's default. Null off Windows, always.
 */
export function findUprofCli(options: {
  platform: NodeJS.Platform;
  configured?: string | undefined;
  searchPath?: string | undefined;
  exists?: (p: string) => boolean;
}): string | null {
  if (options.platform !== 'win32') return null;
  const exists = options.exists ?? existsSync;
  if (options.configured) return exists(options.configured) ? options.configured : null;
  for (const dir of (options.searchPath ?? '').split(';')) {
    if (!dir) continue;
    const candidate = path.win32.join(dir, 'AMDuProfCLI.exe');
    if (exists(candidate)) return candidate;
  }
  return exists(DEFAULT_UPROF_CLI) ? DEFAULT_UPROF_CLI : null;
}

/** uProf events for the requested perfjudge counters (names uProf has no event for are skipped). */
export function uprofEventsFor(names: readonly string[]): string[] {
  const wanted = new Set(names);
  return Object.entries(UPROF_EVENT_TO_COUNTER)
    .filter(([, counter]) => wanted.has(counter))
    .map(([event]) => event);
}

/**
 * argv of `AMDuProfCLI collect` that launches the job helper's command line (`command`) and
 * samples `events` (`-e event=NAME,interval=N`, user and OS mode, per uProf's collect options) into
 * a new session folder under `outputDir`. The helper pins the program to its CPU, so the events
 * are the program's plus the helper's few instructions (it is not pinned there).
 */
export function uprofCollectArgs(
  events: readonly string[],
  interval: number,
  outputDir: string,
  command: readonly string[],
): string[] {
  if (!Number.isInteger(interval) || interval <= 0) throw new RangeError('interval must be > 0');
  if (command.length === 0) throw new RangeError('no command to count');
  return [
    'collect',
    ...events.flatMap((e) => ['-e', `event=${e},interval=${interval},user=1,os=1`]),
    '-o',
    outputDir,
    '--',
    ...command,
  ];
}

/** argv of `AMDuProfCLI report` for a session folder (writes <session>/report.csv). */
export function uprofReportArgs(sessionDir: string): string[] {
  return ['report', '-i', sessionDir];
}

/**
 * The program's counters from a finished run (UNTESTED: needs Windows + uProf). `run` is the
 * counted command and the folder `collect` wrote; without it, or without uProf, 'unsupported'.
 * Failures never fail the run: they leave the counters 'unsupported' and return a note.
 */
export async function uprofCounters(
  uprof: UprofRunner | null,
  names: readonly string[],
  run?: { outputDir: string; program: string },
): Promise<Record<string, Counter>> {
  if (!uprof || !run || process.platform !== 'win32') return unsupportedCounters(names);
  return (await collectUprofCounters(uprof, names, run)).counters;
}

async function collectUprofCounters(
  uprof: UprofRunner,
  names: readonly string[],
  run: { outputDir: string; program: string },
): Promise<{ counters: Record<string, Counter>; notes: string[] }> {
  try {
    // `collect` names its session folder itself (AMDuProf-<program>-…_<date>): take the newest.
    const entries = await readdir(run.outputDir, { withFileTypes: true });
    const sessions = entries.filter((e) => e.isDirectory()).map((e) => e.name);
    if (sessions.length !== 1)
      return {
        counters: unsupportedCounters(names),
        notes: [`expected one uProf session in ${run.outputDir}, found ${sessions.length}`],
      };
    const session = path.join(run.outputDir, sessions[0]!);
    await execFileAsync(uprof.cli, uprofReportArgs(session), {
      timeout: 120_000,
      windowsHide: true,
    });
    const report = path.join(session, 'report.csv');
    if ((await stat(report)).size > MAX_REPORT_BYTES)
      return { counters: unsupportedCounters(names), notes: ['uProf report too large'] };
    return parseUprofReport(await readFile(report), path.win32.basename(run.program), names);
  } catch (error) {
    return {
      counters: unsupportedCounters(names),
      notes: [`uProf failed: ${String(error).slice(0, 300)}`],
    };
  }
}

// AMD uProf on native Windows hosts. Counting a run with uProf means launching it under
// AMDuProfCLI; that integration (and a parser tested on uProf's real CSV output) needs a Windows
// host with uProf, which the development hosts do not have — so for now every counter is
// 'unsupported' (never 0), and a host with uProf says so in its log instead of guessing a format.
import type { Counter } from '../../contracts';
import { unsupportedCounters } from './unsupported-counters';

/** How a run would be counted by uProf (not available yet: see the comment above). */
export interface UprofRunner {
  cli: string;
}

export function uprofCounters(
  _uprof: UprofRunner | null,
  names: readonly string[],
): Promise<Record<string, Counter>> {
  return Promise.resolve(unsupportedCounters(names));
}

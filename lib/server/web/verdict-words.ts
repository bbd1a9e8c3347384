// A verdict's words, the same on every page, in the exports and in the CLI's report.
import type { Verdict } from '../../../contracts';

const LABELS: Record<Verdict, string> = {
  ACCEPTED: 'Accepted',
  REJECTED: 'Rejected',
  BUILD_ERROR: 'Build error',
  WRONG_ANSWER: 'Wrong answer',
  RUNTIME_ERROR: 'Runtime error',
  TIME_LIMIT_EXCEEDED: 'Time limit exceeded',
  MEMORY_LIMIT_EXCEEDED: 'Memory limit exceeded',
  OUTPUT_LIMIT_EXCEEDED: 'Output limit exceeded',
  JUDGE_ERROR: 'Judge error',
};

export function verdictWords(verdict: Verdict): string {
  return LABELS[verdict];
}

// Turning zod issues into messages, one way for every caller: a field path and what is wrong with it.
import type { z } from 'zod';

type Issue = z.core.$ZodIssue;

/** "limits.memory: Too small" (the path left out when the issue is about the whole value). */
function formatIssue(issue: Issue): string {
  return issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message;
}

/** The first issue, for a one-line answer (an API error, a start-up refusal). */
export function firstIssue(error: z.ZodError, fallback = 'invalid input'): string {
  const issue = error.issues[0];
  return issue ? formatIssue(issue) : fallback;
}

/** The issues on one line, separated by "; " (the first `limit` of them, for a log line). */
export function issuesInline(error: z.ZodError, limit = Infinity): string {
  return error.issues.slice(0, limit).map(formatIssue).join('; ');
}

/** Every issue as "  - field.path: message" lines, so an organizer sees exactly what to fix. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `  - ${issue.path.length ? issue.path.join('.') : '(root)'}: ${issue.message}`)
    .join('\n');
}

/** Top-level field → its first message, for showing next to each input of a form. */
export function fieldErrors(error: z.ZodError): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of error.issues) out[String(issue.path[0] ?? '')] ??= issue.message;
  return out;
}

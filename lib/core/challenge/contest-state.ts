// Whether a contest takes submissions: the one rule the intake, the contest pages and the organizer
// console all show.

export type ContestState = 'open' | 'closed' | 'deadline-passed';

/** The organizer's deadline wins over the manifest's. */
export function contestDeadline(
  organizerDeadline: Date | null,
  manifest: { deadline?: string | undefined },
): Date | null {
  return (
    organizerDeadline ?? (manifest.deadline !== undefined ? new Date(manifest.deadline) : null)
  );
}

/** Open until the organizers close it or its deadline passes; why not, in words. */
export function contestState(
  contest: { closedAt: Date | null; deadline: Date | null },
  now = new Date(),
): { state: ContestState; closedReason: string | null } {
  if (contest.closedAt)
    return { state: 'closed', closedReason: 'The organizers closed the contest.' };
  if (contest.deadline && contest.deadline <= now)
    return { state: 'deadline-passed', closedReason: 'The deadline has passed.' };
  return { state: 'open', closedReason: null };
}

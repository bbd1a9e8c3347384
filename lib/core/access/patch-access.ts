// Who may read a submission's patch: its author and the organizers always; everyone once the
// organizers have published the solutions. Pages and API routes both ask this one function.
export interface PatchAccessSubject {
  userId: string;
  /** When the challenge's solutions were published, or null. */
  solutionsPublishedAt: Date | null;
}

export function canViewPatch(
  viewer: { id: string; role: 'CONTESTANT' | 'ORGANIZER' } | null,
  subject: PatchAccessSubject,
): boolean {
  if (subject.solutionsPublishedAt !== null) return true;
  if (!viewer) return false;
  return viewer.role === 'ORGANIZER' || viewer.id === subject.userId;
}

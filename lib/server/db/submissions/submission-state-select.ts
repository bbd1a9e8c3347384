// The columns every list of submissions starts from (a contestant's own, the organizer's): which
// one, when, and how it stands.
import type { Prisma } from '../generated/prisma/client';

export const SUBMISSION_STATE_SELECT = {
  id: true,
  createdAt: true,
  status: true,
  verdict: true,
  score: true,
  disqualified: true,
} as const satisfies Prisma.SubmissionSelect;

// The audit log's record of sign-ins: each wrong password at an existing account, and each
// session made. A session made after several failures carries how many there were and when, so
// the owner is told at once (the sign-in form shows it) and the record stays.
import { appendAuditLog } from '../audit/append-audit-log';
import type { Db } from '../client';

/** Failures since the owner's last sign-in from which the next sign-in tells the owner. */
const SIGN_IN_REPORT_AFTER = 3;
/** How far back failures count when the account never signed in before. */
const FIRST_SIGN_IN_LOOKBACK_MS = 30 * 24 * 3600 * 1000;

export interface FailedSignInReport {
  failedAttempts: number;
  firstAt: string;
  lastAt: string;
}

export async function recordFailedSignIn(db: Db, userId: string, address: string): Promise<void> {
  await appendAuditLog(db, {
    actorId: null,
    action: 'auth.sign-in-failed',
    subjectType: 'user',
    subjectId: userId,
    payload: { address },
  });
}

/**
 * Records a session made for `userId`; returns the failures since the previous one when there were
 * at least SIGN_IN_REPORT_AFTER (for the owner to see), else null.
 */
export async function recordSignIn(
  db: Db,
  userId: string,
  address: string,
  now = new Date(),
): Promise<FailedSignInReport | null> {
  const previous = await db.auditLog.findFirst({
    where: { action: 'auth.sign-in', subjectType: 'user', subjectId: userId },
    orderBy: { at: 'desc' },
    select: { at: true },
  });
  const since = previous?.at ?? new Date(now.getTime() - FIRST_SIGN_IN_LOOKBACK_MS);
  const failures = await db.auditLog.aggregate({
    where: {
      action: 'auth.sign-in-failed',
      subjectType: 'user',
      subjectId: userId,
      at: { gt: since },
    },
    _count: { _all: true },
    _min: { at: true },
    _max: { at: true },
  });
  const count = failures._count._all;
  const report =
    count >= SIGN_IN_REPORT_AFTER && failures._min.at && failures._max.at
      ? {
          failedAttempts: count,
          firstAt: failures._min.at.toISOString(),
          lastAt: failures._max.at.toISOString(),
        }
      : null;
  await appendAuditLog(db, {
    actorId: userId,
    action: 'auth.sign-in',
    subjectType: 'user',
    subjectId: userId,
    payload: { address, failedBefore: count },
  });
  return report;
}

// The recovery path for an account whose authenticator app and backup codes are lost: the operator
// turns its two-factor sign-in off (`npm run account:reset-two-factor -- EMAIL`). Its sessions
// end, so whoever holds one signs in again; an organizer on a platform that requires a second
// factor sets up a new one before the console opens again.
import { appendAuditLog } from '../audit/append-audit-log';
import type { Db } from '../client';

export async function resetTwoFactor(db: Db, email: string): Promise<{ userId: string } | null> {
  const user = await db.user.findUnique({
    where: { email: email.trim().toLowerCase() },
    select: { id: true },
  });
  if (!user) return null;
  await db.$transaction(async (tx) => {
    await tx.twoFactor.deleteMany({ where: { userId: user.id } });
    await tx.user.update({ where: { id: user.id }, data: { twoFactorEnabled: false } });
    await tx.session.deleteMany({ where: { userId: user.id } });
    await appendAuditLog(tx, {
      actorId: null,
      action: 'user.reset-two-factor',
      subjectType: 'user',
      subjectId: user.id,
    });
  });
  return { userId: user.id };
}

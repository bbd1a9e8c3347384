// Accounts with many wrong passwords lately (from the audit log), for the organizer console.
import type { Db } from '../client';

/** Wrong passwords within the window from which an account is listed. */
export const UNDER_ATTACK_AFTER = 5;
export const UNDER_ATTACK_WINDOW_MS = 24 * 3600 * 1000;
const LISTED_MAX = 50;

export interface AccountUnderAttack {
  userId: string;
  name: string;
  email: string;
  role: 'CONTESTANT' | 'ORGANIZER';
  failedAttempts: number;
  /** Distinct client addresses the attempts came from. */
  addresses: number;
  lastAt: Date;
}

export async function listAccountsUnderAttack(
  db: Db,
  now = new Date(),
): Promise<AccountUnderAttack[]> {
  const since = new Date(now.getTime() - UNDER_ATTACK_WINDOW_MS);
  const where = { action: 'auth.sign-in-failed', subjectType: 'user', at: { gte: since } };
  const groups = await db.auditLog.groupBy({
    by: ['subjectId'],
    where,
    _count: { _all: true },
    _max: { at: true },
    having: { subjectId: { _count: { gte: UNDER_ATTACK_AFTER } } },
    orderBy: { _count: { subjectId: 'desc' } },
    take: LISTED_MAX,
  });
  const ids = groups.map((g) => g.subjectId).filter((id): id is string => id !== null);
  if (ids.length === 0) return [];
  const [users, addressRows] = await Promise.all([
    db.user.findMany({
      where: { id: { in: ids } },
      select: { id: true, name: true, email: true, role: true },
    }),
    db.$queryRaw<{ subjectId: string; addresses: bigint }[]>`
      SELECT "subjectId", COUNT(DISTINCT payload->>'address') AS addresses FROM "AuditLog"
      WHERE action = 'auth.sign-in-failed' AND "subjectType" = 'user' AND at >= ${since}
        AND "subjectId" = ANY(${ids}) GROUP BY "subjectId"`,
  ]);
  const byId = new Map(users.map((u) => [u.id, u]));
  const addresses = new Map(addressRows.map((r) => [r.subjectId, Number(r.addresses)]));
  return groups.flatMap((g) => {
    const user = g.subjectId ? byId.get(g.subjectId) : undefined;
    if (!user || !g._max.at) return [];
    return [
      {
        userId: user.id,
        name: user.name,
        email: user.email,
        role: user.role,
        failedAttempts: g._count._all,
        addresses: addresses.get(user.id) ?? 0,
        lastAt: g._max.at,
      },
    ];
  });
}

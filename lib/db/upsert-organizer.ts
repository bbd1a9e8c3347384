// Makes sure an organizer account exists with the given password (the seed's account). Idempotent:
// an existing account keeps its hash while the password still matches it.
import { hashPassword, verifyPassword } from '../auth/password';
import type { Db } from './client';
import { appendAuditLog } from './append-audit-log';

export interface UpsertOrganizerOptions {
  email: string;
  password: string;
  name?: string;
}

export async function upsertOrganizer(
  db: Db,
  options: UpsertOrganizerOptions,
): Promise<{ userId: string; created: boolean }> {
  const email = options.email.trim().toLowerCase();
  const existing = await db.user.findUnique({
    where: { email },
    select: { id: true, role: true, passwordHash: true },
  });
  if (existing) {
    const passwordMatches =
      existing.passwordHash !== null &&
      (await verifyPassword(options.password, existing.passwordHash));
    if (existing.role !== 'ORGANIZER' || !passwordMatches)
      await db.user.update({
        where: { id: existing.id },
        data: {
          role: 'ORGANIZER',
          ...(passwordMatches ? {} : { passwordHash: await hashPassword(options.password) }),
        },
      });
    return { userId: existing.id, created: false };
  }
  const passwordHash = await hashPassword(options.password);
  return db.$transaction(async (tx) => {
    const user = await tx.user.create({
      data: { email, name: options.name ?? 'Organizer', role: 'ORGANIZER', passwordHash },
      select: { id: true },
    });
    await appendAuditLog(tx, {
      actorId: null,
      action: 'user.create-organizer',
      subjectType: 'user',
      subjectId: user.id,
      payload: { email },
    });
    return { userId: user.id, created: true };
  });
}

// Makes sure an organizer account exists with the given password (the seed's account). Idempotent:
// an existing account keeps its hash while the password still matches it.
import { hashPassword, verifyPassword } from '../../../core/access/password';
import type { Db } from '../client';
import { appendAuditLog } from '../audit/append-audit-log';
import { CREDENTIAL_PROVIDER, createUser } from './create-user';

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
    select: {
      id: true,
      role: true,
      accounts: {
        where: { providerId: CREDENTIAL_PROVIDER },
        select: { id: true, password: true },
      },
    },
  });
  if (existing) {
    const account = existing.accounts[0];
    const passwordMatches =
      !!account?.password && (await verifyPassword(options.password, account.password));
    if (existing.role !== 'ORGANIZER')
      await db.user.update({ where: { id: existing.id }, data: { role: 'ORGANIZER' } });
    if (!passwordMatches) {
      const password = await hashPassword(options.password);
      await db.account.upsert({
        where: {
          providerId_accountId: { providerId: CREDENTIAL_PROVIDER, accountId: existing.id },
        },
        create: {
          userId: existing.id,
          accountId: existing.id,
          providerId: CREDENTIAL_PROVIDER,
          password,
        },
        update: { password },
      });
    }
    return { userId: existing.id, created: false };
  }
  const { userId } = await createUser(db, {
    email,
    name: options.name ?? 'Organizer',
    role: 'ORGANIZER',
    password: options.password,
  });
  await appendAuditLog(db, {
    actorId: null,
    action: 'user.create-organizer',
    subjectType: 'user',
    subjectId: userId,
    payload: { email },
  });
  return { userId, created: true };
}

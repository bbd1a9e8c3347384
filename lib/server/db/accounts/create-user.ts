// Creates an account. The email is stored lower-case; the password, when given, becomes the
// user's e-mail + password sign-in (a Better Auth credential account holding the scrypt hash).
import { hashPassword } from '../../../core/access/password';
import type { Db } from '../client';
import type { Role } from '../generated/prisma/enums';

export interface CreateUserOptions {
  email: string;
  name: string;
  role?: Role;
  password?: string;
}

/** Better Auth's provider id for e-mail + password accounts (accountId is the user id). */
export const CREDENTIAL_PROVIDER = 'credential';

export async function createUser(db: Db, options: CreateUserOptions): Promise<{ userId: string }> {
  const passwordHash = options.password ? await hashPassword(options.password) : null;
  return db.$transaction(async (tx) => {
    const user = await tx.user.create({
      data: {
        email: options.email.trim().toLowerCase(),
        name: options.name,
        role: options.role ?? 'CONTESTANT',
      },
      select: { id: true },
    });
    if (passwordHash)
      await tx.account.create({
        data: {
          userId: user.id,
          accountId: user.id,
          providerId: CREDENTIAL_PROVIDER,
          password: passwordHash,
        },
      });
    return { userId: user.id };
  });
}

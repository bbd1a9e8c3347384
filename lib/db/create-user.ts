// Creates an account. The email is stored lower-case; the password, when given, as a scrypt hash.
import { hashPassword } from '../auth/password';
import type { Db } from './client';
import type { Role } from './generated/prisma/enums';

export interface CreateUserOptions {
  email: string;
  name: string;
  role?: Role;
  password?: string;
}

export async function createUser(db: Db, options: CreateUserOptions): Promise<{ userId: string }> {
  const user = await db.user.create({
    data: {
      email: options.email.trim().toLowerCase(),
      name: options.name,
      role: options.role ?? 'CONTESTANT',
      passwordHash: options.password ? await hashPassword(options.password) : null,
    },
    select: { id: true },
  });
  return { userId: user.id };
}

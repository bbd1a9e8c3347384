// What the sign-in guard needs of an account: its id and the hash of its password (which device
// cookies are bound to, so changing the password revokes them).
import type { Db } from '../client';
import { CREDENTIAL_PROVIDER } from './create-user';

export interface SignInAccount {
  id: string;
  email: string;
  /** Null for an account without a password. */
  passwordHash: string | null;
}

export async function getSignInAccount(db: Db, email: string): Promise<SignInAccount | null> {
  const user = await db.user.findUnique({
    where: { email },
    select: {
      id: true,
      email: true,
      accounts: { where: { providerId: CREDENTIAL_PROVIDER }, select: { password: true } },
    },
  });
  if (!user) return null;
  return { id: user.id, email: user.email, passwordHash: user.accounts[0]?.password ?? null };
}

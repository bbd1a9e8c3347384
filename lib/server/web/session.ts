// Who is asking: the signed-in user of a page, action or route handler (session cookie), or the
// owner of an API token (Authorization: Bearer). Pages call currentUser(); guarded ones requireX().
import 'server-only';
import { headers } from 'next/headers';
import { forbidden, redirect } from 'next/navigation';
import { cache } from 'react';
import { auth } from '../auth/auth';
import { env } from '../../core/config/env';
import { db } from '../db/client';
import { verifyApiToken } from '../db/accounts/verify-api-token';

export interface SessionUser {
  id: string;
  name: string;
  email: string;
  role: 'CONTESTANT' | 'ORGANIZER';
  /**
   * An organizer who must turn on two-factor sign-in first (PERFJUDGE_ORGANIZER_TWO_FACTOR): until
   * then `role` is CONTESTANT, so no organizer check anywhere lets them through.
   */
  needsTwoFactor: boolean;
  twoFactorEnabled: boolean;
}

/** The role a user acts with: an organizer without a required second factor is not one yet. */
function effectiveUser(u: {
  id: string;
  name: string;
  email: string;
  role?: string | null;
  twoFactorEnabled?: boolean | null;
}): SessionUser {
  const organizer = u.role === 'ORGANIZER';
  const needsTwoFactor =
    organizer && env().PERFJUDGE_ORGANIZER_TWO_FACTOR === 'required' && u.twoFactorEnabled !== true;
  return {
    id: u.id,
    name: u.name,
    email: u.email,
    role: organizer && !needsTwoFactor ? 'ORGANIZER' : 'CONTESTANT',
    needsTwoFactor,
    twoFactorEnabled: u.twoFactorEnabled === true,
  };
}

/** Once per request, however many components ask. */
export const currentUser = cache(async (): Promise<SessionUser | null> => {
  // headers() first: it marks the page dynamic before anything touches the database.
  const requestHeaders = await headers();
  const session = await auth().api.getSession({ headers: requestHeaders });
  if (!session) return null;
  return effectiveUser(session.user as typeof session.user & { role?: string });
});

/** For pages: a visitor who is not signed in is sent to sign in and brought back. */
export async function requireUser(returnTo: string): Promise<SessionUser> {
  const user = await currentUser();
  if (!user) redirect(`/sign-in?next=${encodeURIComponent(returnTo)}`);
  return user;
}

export async function requireOrganizer(returnTo: string): Promise<SessionUser> {
  const user = await requireUser(returnTo);
  if (user.needsTwoFactor) redirect('/account?two-factor=required#two-factor');
  if (user.role !== 'ORGANIZER') forbidden();
  return user;
}

/** For route handlers: the session user, else the API token's owner, else null. */
export async function requestUser(request: Request): Promise<SessionUser | null> {
  const header = request.headers.get('authorization');
  if (header?.toLowerCase().startsWith('bearer ')) {
    const verified = await verifyApiToken(db(), header.slice(7).trim());
    if (!verified) return null;
    const user = await db().user.findUnique({
      where: { id: verified.userId },
      select: { id: true, name: true, email: true, role: true, twoFactorEnabled: true },
    });
    return user && effectiveUser(user);
  }
  return currentUser();
}

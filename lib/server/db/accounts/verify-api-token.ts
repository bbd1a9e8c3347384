// Resolves an API token to its user, or null when it is unknown, revoked or expired.
import type { Db } from '../client';
import { apiTokenHash, isApiTokenShaped } from './api-token-hash';
import type { Role } from '../generated/prisma/enums';

export interface VerifiedApiToken {
  tokenId: string;
  userId: string;
  role: Role;
}

/** lastUsedAt is a hint for the user, not an audit trail: at most one write a minute per token. */
const LAST_USED_RESOLUTION_MS = 60_000;

export async function verifyApiToken(
  db: Db,
  token: string,
  now = new Date(),
): Promise<VerifiedApiToken | null> {
  if (!isApiTokenShaped(token)) return null;
  const row = await db.apiToken.findUnique({
    where: { tokenHash: apiTokenHash(token) },
    select: {
      id: true,
      revokedAt: true,
      expiresAt: true,
      lastUsedAt: true,
      user: { select: { id: true, role: true } },
    },
  });
  if (!row || row.revokedAt || (row.expiresAt && row.expiresAt <= now)) return null;
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS)
    await db.apiToken.update({ where: { id: row.id }, data: { lastUsedAt: now } });
  return { tokenId: row.id, userId: row.user.id, role: row.user.role };
}

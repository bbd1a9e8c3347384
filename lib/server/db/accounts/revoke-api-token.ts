// Revokes an API token; with userId, only if it belongs to that user. Returns whether one was revoked.
import type { Db } from '../client';

export async function revokeApiToken(
  db: Db,
  options: { tokenId: string; userId?: string },
): Promise<boolean> {
  const { count } = await db.apiToken.updateMany({
    where: {
      id: options.tokenId,
      revokedAt: null,
      userId: options.userId,
    },
    data: { revokedAt: new Date() },
  });
  return count === 1;
}

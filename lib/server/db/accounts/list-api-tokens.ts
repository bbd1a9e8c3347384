// A user's API tokens for their account page: names, prefixes and dates, never the hash.
import type { Db } from '../client';

export interface ApiTokenListItem {
  id: string;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

export function listApiTokens(db: Db, userId: string): Promise<ApiTokenListItem[]> {
  return db.apiToken.findMany({
    where: { userId },
    orderBy: { createdAt: 'desc' },
    take: 100,
    select: {
      id: true,
      name: true,
      prefix: true,
      createdAt: true,
      lastUsedAt: true,
      expiresAt: true,
      revokedAt: true,
    },
  });
}

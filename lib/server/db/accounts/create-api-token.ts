// Creates an API token for a user. The token is returned once; only its hash is stored.
import type { Db } from '../client';
import { newApiToken } from './api-token-hash';

export interface CreateApiTokenOptions {
  userId: string;
  name: string;
  expiresAt?: Date;
}

export interface CreatedApiToken {
  tokenId: string;
  /** Show it to the user now: it cannot be read back later. */
  token: string;
  prefix: string;
}

export async function createApiToken(
  db: Db,
  options: CreateApiTokenOptions,
): Promise<CreatedApiToken> {
  const { token, prefix, tokenHash } = newApiToken();
  const row = await db.apiToken.create({
    data: {
      userId: options.userId,
      name: options.name,
      prefix,
      tokenHash,
      expiresAt: options.expiresAt ?? null,
    },
    select: { id: true },
  });
  return { tokenId: row.id, token, prefix };
}

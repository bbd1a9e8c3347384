'use server';
// Creating and revoking the signed-in user's API tokens (for `perfjudge submit`).
import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { db } from '../../lib/server/db/client';
import { createApiToken } from '../../lib/server/db/accounts/create-api-token';
import { listApiTokens } from '../../lib/server/db/accounts/list-api-tokens';
import { revokeApiToken } from '../../lib/server/db/accounts/revoke-api-token';
import { ActionError, safeAction } from '../../lib/server/web/safe-action';

/** Enough for every laptop and CI job a contestant has; revoked ones do not count. */
const MAX_ACTIVE_TOKENS = 20;

export const createToken = safeAction(
  z.object({
    name: z
      .string()
      .trim()
      .min(1, 'Name the token (e.g. "laptop")')
      .max(60, 'At most 60 characters'),
    expiresInDays: z.coerce
      .number()
      .int('Whole days')
      .min(0, 'At least 0 (0: never expires)')
      .max(365, 'At most 365 days'),
  }),
  async (input, user) => {
    const active = (await listApiTokens(db(), user.id)).filter((t) => !t.revokedAt);
    if (active.length >= MAX_ACTIVE_TOKENS)
      throw new ActionError(`You have ${MAX_ACTIVE_TOKENS} active tokens: revoke one first.`);
    const created = await createApiToken(db(), {
      userId: user.id,
      name: input.name,
      expiresAt:
        input.expiresInDays > 0
          ? new Date(Date.now() + input.expiresInDays * 86400_000)
          : undefined,
    });
    revalidatePath('/account');
    return { token: created.token, prefix: created.prefix };
  },
);

export const revokeToken = safeAction(
  z.object({ tokenId: z.string().min(1).max(64) }),
  async (input, user) => {
    const revoked = await revokeApiToken(db(), { tokenId: input.tokenId, userId: user.id });
    if (!revoked) throw new ActionError('No such active token.');
    revalidatePath('/account');
    return { revoked };
  },
);

// API tokens against the real PostgreSQL: shown once, stored as a hash, verified, revoked, expired.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiToken } from '../../lib/server/db/accounts/create-api-token';
import { revokeApiToken } from '../../lib/server/db/accounts/revoke-api-token';
import { verifyApiToken } from '../../lib/server/db/accounts/verify-api-token';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { makeUser } from '../../dev/db-fixtures';

let t: TestDatabase;
let userId: string;

beforeAll(async () => {
  t = await createTestDatabase();
  userId = await makeUser(t.db);
});
afterAll(async () => {
  await t?.drop();
});

describe('API tokens', () => {
  it('stores only the hash and a display prefix, never the token', async () => {
    const { token, tokenId, prefix } = await createApiToken(t.db, { userId, name: 'laptop' });
    expect(token).toMatch(/^pj_[A-Za-z0-9_-]{43}$/);
    expect(token.startsWith(prefix)).toBe(true);
    const row = await t.db.apiToken.findUniqueOrThrow({ where: { id: tokenId } });
    expect(row.tokenHash).toBe(createHash('sha256').update(token).digest('hex'));
    // Nothing in the table holds the token in clear.
    const dump = await t.db.$queryRaw<{ row: string }[]>`SELECT t::text AS row FROM "ApiToken" t`;
    expect(dump.some((r) => r.row.includes(token))).toBe(false);
    expect(dump.some((r) => r.row.includes(token.slice(prefix.length)))).toBe(false);
  });

  it('verifies a token to its user and notes its use; unknown or malformed tokens are refused', async () => {
    const { token, tokenId } = await createApiToken(t.db, { userId, name: 'ci' });
    expect(await verifyApiToken(t.db, token)).toEqual({ tokenId, userId, role: 'CONTESTANT' });
    const row = await t.db.apiToken.findUniqueOrThrow({ where: { id: tokenId } });
    expect(row.lastUsedAt).not.toBeNull();

    const forged = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    expect(await verifyApiToken(t.db, forged)).toBeNull();
    expect(await verifyApiToken(t.db, 'not a token')).toBeNull();
  });

  it('refuses a revoked or expired token', async () => {
    const { token, tokenId } = await createApiToken(t.db, { userId, name: 'old' });
    const other = await makeUser(t.db);
    expect(await revokeApiToken(t.db, { tokenId, userId: other })).toBe(false);
    expect(await verifyApiToken(t.db, token)).not.toBeNull();
    expect(await revokeApiToken(t.db, { tokenId, userId })).toBe(true);
    expect(await revokeApiToken(t.db, { tokenId })).toBe(false);
    expect(await verifyApiToken(t.db, token)).toBeNull();

    const expiring = await createApiToken(t.db, {
      userId,
      name: 'short',
      expiresAt: new Date(Date.now() + 60_000),
    });
    expect(await verifyApiToken(t.db, expiring.token)).not.toBeNull();
    expect(await verifyApiToken(t.db, expiring.token, new Date(Date.now() + 120_000))).toBeNull();
  });
});

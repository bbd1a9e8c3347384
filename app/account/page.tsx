// The signed-in user's account: who they are, their sign-in security (two-factor sign-in, password)
// and their API tokens for the command line.
import type { Metadata } from 'next';
import { env } from '../../lib/core/config/env';
import { db } from '../../lib/server/db/client';
import { listApiTokens } from '../../lib/server/db/accounts/list-api-tokens';
import { listChallenges } from '../../lib/server/db/contest/list-challenges';
import { formatDate } from '../../lib/server/web/format';
import { requireUser } from '../../lib/server/web/session';
import { CreateTokenForm, RevokeTokenButton } from './token-forms';
import { ChangePasswordForm, TwoFactorSettings } from './security-forms';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Account' };

export default async function AccountPage() {
  const user = await requireUser('/account');
  const tokens = await listApiTokens(db(), user.id);
  const challenges = (await listChallenges(db())).map((c) => c.slug);
  const now = Date.now();
  const requiredForYou =
    (user.role === 'ORGANIZER' || user.needsTwoFactor) &&
    env().PERFJUDGE_ORGANIZER_TWO_FACTOR === 'required';
  return (
    <>
      <h1>Your account</h1>
      <dl className="kv card">
        <dt>Name</dt>
        <dd>{user.name}</dd>
        <dt>E-mail</dt>
        <dd>{user.email}</dd>
        <dt>Role</dt>
        <dd>{user.role === 'ORGANIZER' || user.needsTwoFactor ? 'Organizer' : 'Contestant'}</dd>
      </dl>

      <h2 id="two-factor">Two-factor sign-in</h2>
      {user.needsTwoFactor && (
        <div className="notice warn" role="alert" data-testid="two-factor-required">
          This platform requires organizers to sign in with a second factor: turn it on to use the
          organizer console.
        </div>
      )}
      <div className="card">
        <p className="muted" style={{ marginTop: 0 }}>
          {user.twoFactorEnabled
            ? 'On: signing in asks for a code from your authenticator app (or a backup code).'
            : 'Off: a password is enough to sign in as you.'}
        </p>
        <TwoFactorSettings enabled={user.twoFactorEnabled} organizerRequired={requiredForYou} />
      </div>

      <h2 id="password">Password</h2>
      <div className="card">
        <ChangePasswordForm />
      </div>

      <h2>API tokens</h2>
      <p className="muted">
        A token lets <code>perfjudge submit</code> (or any HTTP client) submit as you. Only its
        first characters are kept in clear; revoke a token you no longer use.
      </p>
      <TokensTable tokens={tokens} now={now} />
      <div className="card">
        <h3 style={{ marginTop: 0 }}>New token</h3>
        <CreateTokenForm server={env().PERFJUDGE_PUBLIC_URL} challenges={challenges} />
      </div>
    </>
  );
}

/** Each token: name, prefix, when created, last used and expiring, and revoke while it is live. */
function TokensTable({
  tokens,
  now,
}: {
  tokens: Awaited<ReturnType<typeof listApiTokens>>;
  now: number;
}) {
  return (
    <div className="table-wrap">
      <table data-testid="api-tokens">
        <thead>
          <tr>
            <th>Name</th>
            <th>Token</th>
            <th>Created</th>
            <th>Last used</th>
            <th>Expires</th>
            <th>State</th>
          </tr>
        </thead>
        <tbody>
          {tokens.length === 0 && (
            <tr>
              <td colSpan={6} className="empty">
                No tokens yet.
              </td>
            </tr>
          )}
          {tokens.map((t) => {
            const expired = t.expiresAt !== null && t.expiresAt.getTime() <= now;
            return (
              <tr key={t.id}>
                <td>
                  <span className="ellipsis" title={t.name}>
                    {t.name}
                  </span>
                </td>
                <td className="mono">{t.prefix}…</td>
                <td className="nowrap">{formatDate(t.createdAt)}</td>
                <td className="nowrap">{t.lastUsedAt ? formatDate(t.lastUsedAt) : 'never'}</td>
                <td className="nowrap">{t.expiresAt ? formatDate(t.expiresAt) : 'never'}</td>
                <td>
                  {t.revokedAt ? (
                    <span className="badge">Revoked</span>
                  ) : expired ? (
                    <span className="badge warn">Expired</span>
                  ) : (
                    <RevokeTokenButton tokenId={t.id} name={t.name} />
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

// The organizer console's list of accounts at which many wrong passwords were tried lately (from
// the audit log): whose, how many, from how many addresses, the last one.
import { db } from '../../../lib/server/db/client';
import {
  listAccountsUnderAttack,
  UNDER_ATTACK_AFTER,
  UNDER_ATTACK_WINDOW_MS,
} from '../../../lib/server/db/accounts/list-accounts-under-attack';
import { formatCount, formatDate } from '../../../lib/server/web/format';

export async function AccountsUnderAttack() {
  const accounts = await listAccountsUnderAttack(db());
  const hours = UNDER_ATTACK_WINDOW_MS / 3_600_000;
  return (
    <>
      <h2>Accounts under attack</h2>
      <p className="muted">
        Accounts with at least {UNDER_ATTACK_AFTER} wrong passwords in the last {hours} hours. Each
        waits longer between attempts as they fail; its owner still signs in from a browser they
        used before, and is told of the attempts at their next sign-in.
      </p>
      {accounts.length === 0 ? (
        <p className="card empty">None.</p>
      ) : (
        <div className="table-wrap">
          <table data-testid="accounts-under-attack">
            <thead>
              <tr>
                <th>Account</th>
                <th>Role</th>
                <th className="num">Wrong passwords</th>
                <th className="num">Addresses</th>
                <th>Last attempt</th>
              </tr>
            </thead>
            <tbody>
              {accounts.map((a) => (
                <tr key={a.userId}>
                  <td>
                    <span className="ellipsis" title={`${a.name} <${a.email}>`}>
                      {a.name} <span className="muted small">{a.email}</span>
                    </span>
                  </td>
                  <td>
                    {a.role === 'ORGANIZER' ? (
                      <span className="badge bad">organizer</span>
                    ) : (
                      'contestant'
                    )}
                  </td>
                  <td className="num">{formatCount(a.failedAttempts)}</td>
                  <td className="num">{formatCount(a.addresses)}</td>
                  <td className="nowrap">{formatDate(a.lastAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

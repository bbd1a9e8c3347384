// What the owner is told on signing in after several wrong passwords at their account (the
// sign-in guard's `signInReport`, counted from the audit log).
import Link from 'next/link';
import type { FailedSignInReport } from '../../lib/server/db/accounts/record-sign-in';
import { formatDate } from '../../lib/server/web/format';

export function SignInReport({
  report,
  onContinue,
}: {
  report: FailedSignInReport;
  onContinue: () => void;
}) {
  return (
    <div className="notice warn stack" role="alert" data-testid="sign-in-report">
      <p>
        <strong>
          {report.failedAttempts} failed sign-in attempts at your account since you last signed in
        </strong>
        , from {formatDate(report.firstAt)} to {formatDate(report.lastAt)}.
      </p>
      <p>
        If they were not yours, someone is guessing your password: change it on your{' '}
        <Link href="/account#password">account page</Link> and turn on two-factor sign-in.
      </p>
      <div>
        <button type="button" onClick={onContinue}>
          Continue
        </button>
      </div>
    </div>
  );
}

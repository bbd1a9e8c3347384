// What identifies a submission on the organizer's pages (its page and its diff): who, which
// challenge, when, the verdict and the score; each page adds its own rows after these.
import type { ReactNode } from 'react';
import type { OrganizerSubmission } from '../../../lib/server/db/submissions/get-organizer-submission';
import { formatDate, formatScore } from '../../../lib/server/web/format';
import { VerdictBadge } from '../../_components/verdict-badge';

export function SubmissionFacts({
  submission,
  showReason = false,
  children,
}: {
  submission: OrganizerSubmission;
  /** Show a disqualification's reason under the verdict. */
  showReason?: boolean;
  children?: ReactNode;
}) {
  return (
    <dl className="kv">
      <dt>Contestant</dt>
      <dd>
        {submission.contestant.name}{' '}
        <span className="muted small">{submission.contestant.email}</span>
      </dd>
      <dt>Challenge</dt>
      <dd className="mono">{submission.challengeSlug}</dd>
      <dt>Submitted</dt>
      <dd>{formatDate(submission.createdAt)}</dd>
      <dt>Verdict</dt>
      <dd>
        <VerdictBadge
          verdict={submission.verdict}
          status={submission.status}
          disqualified={submission.disqualified}
        />
        {showReason && submission.disqualified && submission.disqualifiedReason && (
          <div className="small">Reason: {submission.disqualifiedReason}</div>
        )}
      </dd>
      <dt>Score</dt>
      <dd>{formatScore(submission.score)}</dd>
      {children}
    </dl>
  );
}

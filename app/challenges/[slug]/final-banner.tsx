// Where the contest's final result stands, on the challenge page, the provisional leaderboard and
// the final page: "Final evaluation in progress" while it runs, "Final results under review" once
// it is done but not published, and after publication a pointer to the final result (the
// leaderboard is then labelled provisional). Nothing while there is no evaluation.
import Link from 'next/link';
import { db } from '../../../lib/server/db/client';
import { getContestResultState } from '../../../lib/server/db/contest/get-contest-result-state';
import { formatDate } from '../../../lib/server/web/format';

export async function FinalBanner({
  slug,
  where,
}: {
  slug: string;
  where: 'challenge' | 'leaderboard' | 'final';
}) {
  const state = await getContestResultState(db(), slug);
  const final = `/challenges/${slug}/final`;
  if (!state || state.status === 'FAILED')
    return where === 'final' ? (
      <p className="notice" data-testid="final-banner">
        No final result yet: the final evaluation runs after the deadline.
      </p>
    ) : null;
  if (state.publishedAt)
    return where === 'leaderboard' ? (
      <p className="notice ok" data-testid="final-banner">
        <span className="badge warn">Provisional</span> This leaderboard ranks submissions as they
        were judged on arrival. The contest&apos;s result is the{' '}
        <Link href={final}>final leaderboard</Link>, published {formatDate(state.publishedAt)}.
      </p>
    ) : null;
  if (state.status === 'RUNNING')
    return (
      <p className="notice warn" data-testid="final-banner" role="status">
        <strong>Final evaluation in progress</strong> since {formatDate(state.startedAt)}: every
        finalist&apos;s selected submission is timed again, side by side with the others, on a fresh
        input.{' '}
        {where === 'final' ? 'The result appears here' : 'The final result will be published'} once
        the organizers have reviewed it.
      </p>
    );
  return (
    <p className="notice warn" data-testid="final-banner" role="status">
      <strong>Final results under review</strong>: the final evaluation is done and the organizers
      are checking it before they publish the result.
    </p>
  );
}

// /me/submissions: the signed-in contestant's history (newest first, capped) with each target's
// verdict and speedup, their current place on each leaderboard with the submission that counts, and
// a chart of their best score over time; which accepted submission counts for the final evaluation
// (chosen, or the best score by default) and, until the deadline, the buttons to change it.
import type { Metadata } from 'next';
import Link from 'next/link';
import { BestScoreChart, type BestScoreLine } from '../../_components/charts/best-score-chart';
import { VerdictBadge } from '../../_components/verdict-badge';
import { DEFAULT_CHALLENGE } from '../../../lib/core/challenge/default-challenge';
import { db } from '../../../lib/server/db/client';
import { getMyRanks } from '../../../lib/server/db/leaderboard/get-my-ranks';
import {
  listMyFinalChoices,
  type MyFinalChoice,
} from '../../../lib/server/db/final/list-my-final-choices';
import {
  listMySubmissions,
  type MySubmissionRow,
} from '../../../lib/server/db/submissions/list-my-submissions';
import { formatDate, formatScore, formatSpeedupInterval } from '../../../lib/server/web/format';
import { requireUser } from '../../../lib/server/web/session';
import { clearFinalAction, selectFinalAction } from './actions';
import { FinalChoiceButton } from './final-choice-button';

export const metadata: Metadata = { title: 'My submissions' };

/** Each challenge's best score as a step line; the best so far holds until now. */
function bestScoreLines(
  best: Awaited<ReturnType<typeof listMySubmissions>>['best'],
  now: number,
): BestScoreLine[] {
  return best
    .filter((b) => b.points.length > 0)
    .map((b) => ({
      name: b.challenge.title,
      // The step line runs on to today's edge.
      points: [
        ...b.points.map((p) => ({ t: Date.parse(p.at), score: p.score })),
        { t: now, score: b.points.at(-1)!.score },
      ],
    }));
}

export default async function MySubmissionsPage() {
  const user = await requireUser('/me/submissions');
  const [mine, ranks, finalChoices] = await Promise.all([
    listMySubmissions(db(), { userId: user.id }),
    getMyRanks(db(), { userId: user.id }),
    listMyFinalChoices(db(), { userId: user.id }),
  ]);
  const choiceBySlug = new Map(finalChoices.map((c) => [c.challenge.slug, c]));
  const counting = new Set(ranks.map((r) => r.submissionId));
  const targets = [...new Set(mine.rows.flatMap((r) => r.targets.map((t) => t.target)))].sort();
  const lines = bestScoreLines(mine.best, Date.now());

  return (
    <>
      <h1>My submissions</h1>
      {mine.rows.length === 0 ? (
        <div className="card empty">
          <p>You have not submitted anything yet.</p>
          <p>
            <Link className="btn" href={`/challenges/${DEFAULT_CHALLENGE}/submit`}>
              Submit a patch
            </Link>
          </p>
        </div>
      ) : (
        <>
          {ranks.length > 0 && <MyRanks ranks={ranks} />}
          {finalChoices.length > 0 && <FinalChoices choices={finalChoices} />}
          <section className="card" aria-labelledby="best-heading">
            <h2 id="best-heading" style={{ marginTop: 0 }}>
              Best score over time
            </h2>
            {lines.length > 0 ? (
              <BestScoreChart lines={lines} />
            ) : (
              <p className="muted">No accepted submission yet: the chart starts with your first.</p>
            )}
          </section>
          <p className="small muted">
            {mine.total > mine.rows.length
              ? `Your latest ${mine.rows.length} of ${mine.total} submissions.`
              : `${mine.total} submission${mine.total === 1 ? '' : 's'}.`}
          </p>
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>submitted</th>
                  <th>challenge</th>
                  {targets.map((t) => (
                    <th key={t}>{t}</th>
                  ))}
                  <th>overall</th>
                  <th className="num">score</th>
                  <th>final</th>
                  <th>page</th>
                </tr>
              </thead>
              <tbody>
                {mine.rows.map((r) => (
                  <MySubmissionRow
                    key={r.id}
                    r={r}
                    targets={targets}
                    counts={counting.has(r.id)}
                    choice={choiceBySlug.get(r.challenge.slug)}
                  />
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </>
  );
}

/** Per challenge: the submission that counts for the final, why, and the way back to the default. */
function FinalChoices({ choices }: { choices: MyFinalChoice[] }) {
  return (
    <section className="card" aria-labelledby="final-heading" data-testid="final-choices">
      <h2 id="final-heading" style={{ marginTop: 0 }}>
        Counts for the final
      </h2>
      <p className="small muted">
        At the deadline one accepted submission of yours per challenge is judged again in the final
        evaluation, on a fresh input next to every other finalist&apos;s. By default it is your best
        provisional score; you may choose another until the deadline.
      </p>
      <ul className="outcome-list">
        {choices.map((c) => (
          <li key={c.challenge.slug} data-testid={`final-choice-${c.challenge.slug}`}>
            {c.challenge.title}:{' '}
            {c.countingSubmissionId ? (
              <Link href={`/submissions/${c.countingSubmissionId}`} className="mono">
                {c.countingSubmissionId}
              </Link>
            ) : (
              <span className="muted">no accepted submission</span>
            )}{' '}
            {c.selectedSubmissionId ? (
              <span className="badge info">chosen by you</span>
            ) : (
              <span className="badge">best score, by default</span>
            )}
            {c.selectedSubmissionId && c.open && (
              <>
                {' '}
                <FinalChoiceButton
                  label="Back to my best"
                  action={clearFinalAction}
                  input={{ slug: c.challenge.slug }}
                  secondary
                />
              </>
            )}
            {!c.open && <div className="small muted">{c.closedReason}</div>}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** A row's part in the final: counts (and why), or the button that makes it count. */
function FinalCell({ row, choice }: { row: MySubmissionRow; choice: MyFinalChoice | undefined }) {
  if (choice && choice.countingSubmissionId === row.id)
    return (
      <span
        className="badge ok"
        data-testid="counts-for-final"
        title={
          choice.selectedSubmissionId === row.id
            ? 'You chose it for the final evaluation'
            : 'Your best provisional score: it counts unless you choose another'
        }
      >
        {choice.selectedSubmissionId === row.id ? 'counts (chosen)' : 'counts (best)'}
      </span>
    );
  const eligible = row.status === 'DONE' && row.verdict === 'ACCEPTED' && !row.disqualified;
  if (!eligible || !choice?.open) return <span className="muted">–</span>;
  return (
    <FinalChoiceButton
      label="Count this one for the final"
      action={selectFinalAction}
      input={{ submissionId: row.id }}
    />
  );
}

type MyRow = Awaited<ReturnType<typeof listMySubmissions>>['rows'][number];

/** One submission: when, which challenge, each target's verdict, the overall one, score, final. */
function MySubmissionRow({
  r,
  targets,
  counts,
  choice,
}: {
  r: MyRow;
  targets: string[];
  /** It is the contestant's row on the leaderboard. */
  counts: boolean;
  choice: MyFinalChoice | undefined;
}) {
  return (
    <tr data-testid={`my-submission-${r.id}`}>
      <td className="nowrap">{formatDate(r.createdAt)}</td>
      <td>
        <span className="ellipsis" style={{ maxWidth: '12em' }}>
          {r.challenge.title}
        </span>
      </td>
      {targets.map((name) => {
        const t = r.targets.find((x) => x.target === name);
        return (
          <td key={name} className="nowrap">
            {t ? (
              <>
                <VerdictBadge verdict={t.verdict} status={t.status} />
                {t.speedup !== null && (
                  <div className="small num" style={{ textAlign: 'left' }}>
                    {formatSpeedupInterval(t.speedup, t.ciLow, t.ciHigh)}
                  </div>
                )}
              </>
            ) : (
              <span className="muted">–</span>
            )}
          </td>
        );
      })}
      <td>
        <VerdictBadge verdict={r.verdict} status={r.status} disqualified={r.disqualified} />
      </td>
      <td className="num">
        {formatScore(r.score)}
        {counts && (
          <span className="badge ok" title="Your row on the leaderboard">
            counts
          </span>
        )}
      </td>
      <td>
        <FinalCell row={r} choice={choice} />
      </td>
      <td>
        <Link href={`/submissions/${r.id}`} aria-label={`Submission ${r.id}`}>
          Open
        </Link>
      </td>
    </tr>
  );
}

/** Where each challenge's counting submission places. */
function MyRanks({ ranks }: { ranks: Awaited<ReturnType<typeof getMyRanks>> }) {
  return (
    <ul className="card outcome-list" data-testid="my-ranks">
      {ranks.map((r) => (
        <li key={r.challenge.slug}>
          <Link href={`/challenges/${r.challenge.slug}/leaderboard`}>{r.challenge.title}</Link>:
          place <strong>{r.rank}</strong> of {r.of} with{' '}
          <Link href={`/submissions/${r.submissionId}`}>score {formatScore(r.score)}</Link>{' '}
          <span className="badge ok">counts</span>
        </li>
      ))}
    </ul>
  );
}

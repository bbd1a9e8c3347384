// /submissions/[id]: one submission, with each target's live progress while it is judged and its
// results once it is. Visible to its author and the organizers, and to everyone once the solutions
// are published (lib/server/db/submissions/get-submission-view.ts); 404 for anyone else, so ids are not confirmed.
import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import {
  LiveOutcome,
  LiveOverallVerdict,
  LiveScore,
  LiveTargetStatus,
  SubmissionLive,
} from '../../_components/submission-live/submission-live';
import { HostLabels } from '../../_components/submission-result/host-labels';
import { JudgingResultView } from '../../_components/submission-result/judging-result';
import { PatchView } from '../../_components/submission-result/patch-view';
import { db } from '../../../lib/server/db/client';
import { getSubmissionPatch } from '../../../lib/server/db/submissions/get-submission-patch';
import { getSubmissionView } from '../../../lib/server/db/submissions/get-submission-view';
import { formatBytes, formatDate } from '../../../lib/server/web/format';
import { webQueues } from '../../../lib/server/web/services';
import { currentUser } from '../../../lib/server/web/session';
import { submissionIdSchema } from '../../../lib/server/web/submission-id';
import { readProgressOf } from '../../../lib/server/web/submission-progress';
import { z } from 'zod';
import { listComparableSubmissions } from '../../../lib/server/db/submissions/list-comparable-submissions';
import type {
  SubmissionView,
  SubmissionViewer,
} from '../../../lib/server/db/submissions/get-submission-view';
import { compareSubmissions } from '../../../lib/server/web/compare-submissions';
import { CompareSection } from './compare';
import { PlausibilityLine } from '../../organizer/_components/plausibility-line';
import {
  listMyFinalChoices,
  type MyFinalChoice,
} from '../../../lib/server/db/final/list-my-final-choices';
import { clearFinalAction, selectFinalAction } from '../../me/submissions/actions';
import { FinalChoiceButton } from '../../me/submissions/final-choice-button';

/** The author's final selection for this submission's challenge; null for anyone else. */
async function loadFinalChoice(
  view: SubmissionView,
  user: SubmissionViewer | null,
): Promise<MyFinalChoice | null> {
  if (!user || !view.isAuthor) return null;
  const choices = await listMyFinalChoices(db(), { userId: user.id });
  return choices.find((c) => c.challenge.slug === view.challenge.slug) ?? null;
}

/** "Counts for the final" on the author's own page, with the button to choose it or go back. */
function FinalChoiceLine({ view, choice }: { view: SubmissionView; choice: MyFinalChoice }) {
  const counts = choice.countingSubmissionId === view.id;
  const chosen = choice.selectedSubmissionId === view.id;
  const eligible = view.status === 'DONE' && view.verdict === 'ACCEPTED' && !view.disqualified;
  if (!counts && !eligible) return <span className="muted">–</span>;
  return (
    <span className="row" data-testid="final-choice">
      {counts ? (
        // The reason beside the badge, not in it: a badge does not wrap, and this one would be
        // wider than a 375 px screen's value column.
        <span>
          <span className="badge ok">Counts for the final</span>{' '}
          <span className="small muted">
            ({chosen ? 'chosen by you' : 'best score, by default'})
          </span>
        </span>
      ) : (
        <span className="muted">Does not count for the final</span>
      )}
      {choice.open && !counts && (
        <FinalChoiceButton
          label="Count this one for the final"
          action={selectFinalAction}
          input={{ submissionId: view.id }}
        />
      )}
      {choice.open && chosen && (
        <FinalChoiceButton
          label="Back to my best"
          action={clearFinalAction}
          input={{ slug: view.challenge.slug }}
          secondary
        />
      )}
      {!choice.open && <span className="muted small">{choice.closedReason}</span>}
    </span>
  );
}

/** The author's comparison choices and, when one was picked, the comparison; null for others. */
async function loadComparison(
  view: SubmissionView,
  user: SubmissionViewer | null,
  param: string | string[] | undefined,
) {
  if (!user || !view.isAuthor) return null;
  const choices = await listComparableSubmissions(db(), {
    userId: user.id,
    submissionId: view.id,
    challengeId: view.challenge.id,
  });
  const parsed = compareSchema.safeParse(param);
  if (!parsed.success) return { choices, compareParam: null, other: null, comparison: null };
  const otherId = parsed.data === 'best' ? choices.bestId : parsed.data;
  // Only the author's own other submissions to this challenge are comparable.
  const allowed = otherId !== null && choices.options.some((o) => o.id === otherId);
  const other = allowed
    ? await getSubmissionView(db(), { submissionId: otherId, viewer: user })
    : null;
  return {
    choices,
    compareParam: parsed.data,
    other,
    comparison: other ? compareSubmissions(view.judgings, other.judgings) : null,
  };
}

export const metadata: Metadata = { title: 'Submission' };

/** The other submission to compare with: an id of the author's, or "best"; anything else is ignored. */
const compareSchema = z.union([z.literal('best'), submissionIdSchema]);

export default async function SubmissionPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const parsed = submissionIdSchema.safeParse((await params).id);
  if (!parsed.success) notFound();
  const id = parsed.data;
  const user = await currentUser();
  const view = await getSubmissionView(db(), { submissionId: id, viewer: user });
  if (!view) {
    // Whether or not it exists: a signed-out visitor is told why and asked to sign in (the same
    // words for any id, so none is confirmed), anyone else sees 404.
    if (!user)
      return (
        <div className="card" data-testid="private-submission">
          <h1 style={{ marginTop: 0 }}>This submission is private</h1>
          <p>
            A submission and its results are visible to its author and the organizers only, until
            the organizers publish the solutions.
          </p>
          <p>
            <Link
              className="btn"
              href={`/sign-in?next=${encodeURIComponent(`/submissions/${id}`)}`}
            >
              Sign in
            </Link>{' '}
            if it is yours.
          </p>
        </div>
      );
    notFound();
  }
  // The view has the rows the live progress is made of: they are not read twice.
  const [progress, patch, compare, finalChoice] = await Promise.all([
    readProgressOf(db(), webQueues(), { submissionId: view.id, ...view }),
    getSubmissionPatch(db(), { submissionId: id, viewer: user }),
    loadComparison(view, user, (await searchParams).compare),
    loadFinalChoice(view, user),
  ]);
  const patchHref = `/submissions/${encodeURIComponent(id)}/patch`;

  return (
    <SubmissionLive initial={progress}>
      <h1>
        Submission <span className="mono small">{view.id}</span>
      </h1>
      <SubmissionFacts view={view} finalChoice={finalChoice} patchHref={patchHref} />

      {view.judgings.map((j) => (
        <TargetSection
          key={j.judgingId}
          j={j}
          submissionId={view.id}
          organizer={user?.role === 'ORGANIZER'}
        />
      ))}

      {compare && <CompareSection view={view} {...compare} />}

      {patch && (
        <details className="card">
          <summary>Patch</summary>
          <PatchView text={patch.patchText} rawHref={patchHref} />
        </details>
      )}
    </SubmissionLive>
  );
}

/** One target: its labels, live status, and once done the result (and plausibility for organizers). */
function TargetSection({
  j,
  submissionId,
  organizer,
}: {
  j: SubmissionView['judgings'][number];
  submissionId: string;
  organizer: boolean;
}) {
  return (
    <section
      className="card target"
      data-testid={`target-${j.target}`}
      aria-labelledby={`heading-${j.target}`}
    >
      <div className="spread">
        <h2 id={`heading-${j.target}`} style={{ margin: '0.2em 0' }}>
          {j.target}
        </h2>
        <span className="row small">
          {(j.devMode || j.result?.host.devMode) && <span className="badge warn">dev mode</span>}
          {(j.emulated || j.result?.host.emulated) && <span className="badge warn">emulated</span>}
        </span>
      </div>
      <LiveTargetStatus target={j.target} />
      {j.status === 'DONE' && (
        <>
          <HostLabels
            devMode={j.devMode || (j.result?.host.devMode ?? false)}
            emulated={j.emulated || (j.result?.host.emulated ?? false)}
          />
          <JudgingResultView submissionId={submissionId} judging={j} />
          {organizer && (
            <PlausibilityLine
              target={j.target}
              plausibility={j.result?.stages.measure?.plausibility}
            />
          )}
        </>
      )}
    </section>
  );
}

/** Challenge, time, author, live status and score, the final choice, the patch, disqualification. */
function SubmissionFacts({
  view,
  finalChoice,
  patchHref,
}: {
  view: SubmissionView;
  finalChoice: MyFinalChoice | null;
  patchHref: string;
}) {
  return (
    <div className="card">
      <dl className="kv">
        <dt>Challenge</dt>
        <dd>
          <Link href={`/challenges/${view.challenge.slug}`}>{view.challenge.title}</Link>{' '}
          <span className="muted small">version {view.challenge.version}</span>
        </dd>
        <dt>Submitted</dt>
        <dd>{formatDate(view.createdAt)}</dd>
        <dt>Author</dt>
        <dd className="ellipsis" style={{ maxWidth: '100%' }}>
          {view.author.name}
          {view.isAuthor && <span className="muted"> (you)</span>}
        </dd>
        <dt>Status</dt>
        <dd>
          <LiveOverallVerdict />
        </dd>
        <dt>Targets</dt>
        <dd>
          <LiveOutcome />
        </dd>
        <dt>Combined score</dt>
        <dd>
          <LiveScore />
        </dd>
        {finalChoice && (
          <>
            <dt>Final</dt>
            <dd>
              <FinalChoiceLine view={view} choice={finalChoice} />
            </dd>
          </>
        )}
        <dt>Patch</dt>
        <dd>
          <a href={patchHref}>raw text</a>{' '}
          <span className="muted small">({formatBytes(view.patchBytes)})</span>
        </dd>
      </dl>
      {view.disqualified && (
        <p className="notice error" data-testid="disqualified" style={{ marginTop: '1em' }}>
          <strong>Disqualified</strong>
          {view.disqualifiedReason ? `: ${view.disqualifiedReason}` : '.'}
        </p>
      )}
      {!view.isAuthor && !view.solutionsPublished && (
        <p className="small muted">
          You see this as an organizer: before the solutions are published only the author and the
          organizers can.
        </p>
      )}
    </div>
  );
}

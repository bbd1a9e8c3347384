// A challenge's contest settings (deadline, quota, precision, benchmark size and seed), and the
// contest-wide actions: rejudge all, close or reopen, publish or hide the solutions.
import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { formatByteSize } from '../../../../../contracts';
import { describeDefinition } from '../../../../../lib/core/challenge/benchmark-definition';
import { db } from '../../../../../lib/server/db/client';
import { getContestBenchmark } from '../../../../../lib/server/db/contest/contest-benchmark';
import { getChallengeSettings } from '../../../../../lib/server/db/contest/get-challenge-settings';
import type { Contest } from '../../../../../lib/server/db/contest/get-contest';
import { formatDate } from '../../../../../lib/server/web/format';
import { requireOrganizer } from '../../../../../lib/server/web/session';
import { ConsoleNav } from '../../../_components/console-nav';
import { ContestOpenState } from '../../../_components/contest-open-state';
import { findContest } from '../find-contest';
import { ReasonAction } from '../../../_components/reason-action';
import { SettingsForm } from '../../../_components/settings-form';
import {
  closeContestAction,
  publishSolutionsAction,
  rejudgeChallengeAction,
  updateSettingsAction,
} from '../../../actions';

export const metadata: Metadata = { title: 'Settings · organizer' };

/** "256MiB" when that is exact, else the bytes: saving the form again must not round the size. */
function exactSize(bytes: number): string {
  const text = formatByteSize(bytes);
  return text.includes('.') ? String(bytes) : text;
}

export default async function ChallengeSettingsPage({
  params,
}: {
  params: Promise<{ slug: string }>;
}) {
  const { slug } = await params;
  await requireOrganizer(`/organizer/challenges/${encodeURIComponent(slug)}/settings`);
  const contest = await findContest(slug);
  const { manifest } = contest;
  const stored = await getChallengeSettings(db(), contest.slug);
  if (!stored) notFound();
  const definition = await getContestBenchmark(db(), contest.slug);

  return (
    <>
      <h1>
        {contest.title} <span className="muted small mono">{contest.slug}</span>
      </h1>
      <ConsoleNav current={null} challenge={{ slug: contest.slug, page: 'settings' }} />
      <ContestState contest={contest} />

      <h2>Settings</h2>
      <SettingsForm
        action={updateSettingsAction}
        values={{
          slug: contest.slug,
          deadline: stored.deadline ? stored.deadline.toISOString().slice(0, 16) : '',
          submissionsPerHour: stored.submissionsPerHour?.toString() ?? '',
          precision: stored.precision?.toString() ?? '',
          benchmarkSize: stored.benchmarkBytes !== null ? exactSize(stored.benchmarkBytes) : '',
          seedSet: stored.benchmarkSeedSet,
          judgeAllTargets: stored.judgeAllTargets,
          supersedeQueued: stored.supersedeQueued,
          cachegrind: stored.cachegrind,
          definition: describeDefinition(definition),
          defaults: {
            submissionsPerHour: String(manifest.quota.submissionsPerHour),
            precision: String(manifest.runPolicy.precision),
            benchmarkSize: formatByteSize(manifest.inputs.benchmark.size),
          },
        }}
      />

      <h2>Contest</h2>
      <ContestActions contest={contest} />
    </>
  );
}

/** Rejudge all, close or reopen, publish or hide the solutions. */
function ContestActions({ contest }: { contest: Contest }) {
  return (
    <div className="grid">
      <section className="card" aria-label="Rejudge all">
        <h3>Rejudge every submission</h3>
        <p className="small muted">
          After changing the benchmark or precision, so every score is measured the same way.
          Rejudges wait behind new submissions.
        </p>
        <ReasonAction
          label="Rejudge all"
          description={`Every submission of ${contest.slug} loses its results and is judged again.`}
          action={rejudgeChallengeAction}
          input={{ slug: contest.slug }}
          danger
        />
      </section>
      <section className="card" aria-label="Close">
        <h3>{contest.closedAt ? 'Closed' : 'Close the contest'}</h3>
        <p className="small muted">
          {contest.closedAt
            ? `Closed ${formatDate(contest.closedAt)}: submissions are refused.`
            : 'Refuse new submissions from now on, whatever the deadline says.'}
        </p>
        {contest.closedAt ? (
          <ReasonAction
            label="Reopen contest"
            description="Take submissions again (until the deadline, if there is one)."
            action={closeContestAction}
            input={{ slug: contest.slug, closed: false }}
          />
        ) : (
          <ReasonAction
            label="Close contest"
            description="New submissions are refused from now on."
            action={closeContestAction}
            input={{ slug: contest.slug, closed: true }}
            danger
          />
        )}
      </section>
      <section className="card" aria-label="Solutions">
        <h3>{contest.solutionsPublishedAt ? 'Solutions are public' : 'Publish the solutions'}</h3>
        <p className="small muted">
          {contest.solutionsPublishedAt
            ? 'Everyone can read every patch.'
            : 'Until then a patch is visible only to its author and the organizers.'}
        </p>
        {contest.solutionsPublishedAt ? (
          <ReasonAction
            label="Hide solutions"
            description="Patches become visible only to their authors and the organizers again."
            action={publishSolutionsAction}
            input={{ slug: contest.slug, published: false }}
          />
        ) : (
          <ReasonAction
            label="Publish solutions"
            description="Everyone, signed in or not, can read every patch of this contest."
            action={publishSolutionsAction}
            input={{ slug: contest.slug, published: true }}
            danger
            warning={
              contest.open
                ? 'The contest is still open: every contestant could read the others’ patches and submit them as their own.'
                : undefined
            }
          />
        )}
      </section>
    </div>
  );
}

/** Open or closed, solutions published, and the links to its submissions and final evaluation. */
function ContestState({ contest }: { contest: Contest }) {
  return (
    <p className="row">
      <ContestOpenState contest={contest} />
      {contest.solutionsPublishedAt && (
        <span className="badge info">
          Solutions published {formatDate(contest.solutionsPublishedAt)}
        </span>
      )}
      <Link href={`/organizer/submissions?challenge=${contest.slug}`}>Its submissions</Link>
      <Link href={`/organizer/challenges/${contest.slug}/final`}>Final evaluation</Link>
    </p>
  );
}

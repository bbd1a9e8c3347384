// A challenge's final evaluation in the console: the finalists (who, which submission, chosen or
// by default), the start form (refused while the contest is open), a running evaluation's progress
// per target (rounds, time left, hosts; refreshed every few seconds) with Cancel, and a finished
// one's ranking (places, shared places and why, intervals, plausibility flags) with Publish.
import type { Metadata } from 'next';
import Link from 'next/link';
import { DEFAULT_FINAL_ERROR_RATE, DEFAULT_FINAL_ROUNDS } from '../../../../../contracts/final';
import { AutoRefresh } from '../../../../_components/auto-refresh';
import { db } from '../../../../../lib/server/db/client';
import {
  getFinalEvaluation,
  type FinalEvaluationView,
} from '../../../../../lib/server/db/final/get-final-evaluation';
import type { Contest } from '../../../../../lib/server/db/contest/get-contest';
import { getRankingWarnings } from '../../../../../lib/server/db/leaderboard/get-ranking-warnings';
import { listFinalists, type Finalist } from '../../../../../lib/server/db/final/list-finalists';
import { formatDate, formatScore } from '../../../../../lib/server/web/format';
import {
  readEvaluationProgress,
  type EvaluationLive,
} from '../../../../../lib/server/web/final-progress';
import { finalTable } from '../../../../../lib/server/web/final-table';
import {
  errorRateSentence,
  formatErrorRate,
  formatTimeLeft,
} from '../../../../../lib/server/web/final-words';
import { webQueues } from '../../../../../lib/server/web/services';
import { requireOrganizer } from '../../../../../lib/server/web/session';
import { FinalRankingTable, RankingWarnings } from '../../../../_components/final-ranking-table';
import { ConsoleNav } from '../../../_components/console-nav';
import { ContestOpenState } from '../../../_components/contest-open-state';
import { findContest } from '../find-contest';
import { FinalStartForm } from '../../../_components/final-start-form';
import { ReasonAction } from '../../../_components/reason-action';
import { cancelFinalAction, publishFinalAction, startFinalAction } from '../../../actions';

export const metadata: Metadata = { title: 'Final evaluation · organizer' };

/** How often a running evaluation's page refreshes itself. */
const REFRESH_S = 5;

/** Why the organizer cannot start now, in words; null when they can. */
function startRefusal(contest: Contest, evaluation: FinalEvaluationView | null): string | null {
  if (evaluation?.status === 'RUNNING')
    return 'A final evaluation is running: cancel it before starting another.';
  if (contest.open)
    return contest.settings.deadline
      ? `The contest is open until ${formatDate(contest.settings.deadline)}: the final evaluation starts after the deadline (or close the contest first, in Settings).`
      : 'The contest has no deadline and is open: close it first (Settings), then start the final evaluation.';
  return null;
}

export default async function FinalEvaluationConsolePage({
  params,
}: {
  params: Promise<{ slug: string }>;
}) {
  const { slug } = await params;
  await requireOrganizer(`/organizer/challenges/${encodeURIComponent(slug)}/final`);
  const contest = await findContest(slug);
  const [evaluation, finalists] = await Promise.all([
    getFinalEvaluation(db(), contest.slug, { includeUnpublished: true }),
    listFinalists(db(), contest.slug),
  ]);
  const warnings =
    evaluation?.status === 'DONE' ? await getRankingWarnings(db(), evaluation.id) : [];
  const live =
    evaluation?.status === 'RUNNING'
      ? await readEvaluationProgress(db(), webQueues(), evaluation.id)
      : null;
  const canStart =
    !evaluation || evaluation.status === 'CANCELLED' || evaluation.status === 'FAILED';
  const targets = Object.keys(contest.manifest.targets);

  const form = (
    <FinalStartForm
      slug={contest.slug}
      finalists={finalists.length}
      targets={targets}
      defaultRounds={DEFAULT_FINAL_ROUNDS}
      defaultErrorRate={DEFAULT_FINAL_ERROR_RATE}
      refusal={startRefusal(contest, evaluation)}
      action={startFinalAction}
    />
  );

  return (
    <>
      <h1>
        {contest.title}: final evaluation <span className="muted small mono">{contest.slug}</span>
      </h1>
      <ConsoleNav current={null} challenge={{ slug: contest.slug, page: 'final' }} />
      <ContestState contest={contest} />

      {evaluation && (
        <EvaluationSection
          evaluation={evaluation}
          live={live}
          contest={contest}
          warnings={warnings}
        />
      )}

      {canStart && (
        <>
          <h2>Start the final evaluation</h2>
          <StartSection slug={contest.slug}>{form}</StartSection>
        </>
      )}
      {evaluation?.status === 'DONE' && (
        <details className="card">
          <summary>Start another final evaluation</summary>
          <p className="small muted">
            The new one replaces this one as the contest&apos;s final evaluation
            {evaluation.publishedAt ? ' (the public sees it once you publish it)' : ''}.
          </p>
          <StartSection slug={contest.slug}>{form}</StartSection>
        </details>
      )}

      <h2>Finalists</h2>
      <p className="small muted">
        One row per contestant with an accepted, not disqualified submission: the one they chose for
        the final, or their best provisional score by default.
        {evaluation &&
          !canStart &&
          ' The evaluation took the selections as they were when it started.'}
      </p>
      {finalists.length === 0 ? (
        <p className="card empty">No accepted submission yet: nobody to evaluate.</p>
      ) : (
        <FinalistsTable finalists={finalists} />
      )}
    </>
  );
}

/** The latest evaluation: its settings, then progress (running), the ranking (done), or why it stopped. */
function EvaluationSection({
  evaluation,
  live,
  contest,
  warnings,
}: {
  evaluation: FinalEvaluationView;
  live: EvaluationLive | null;
  contest: Contest;
  /** The ranking's own warnings (too few rounds to separate anyone, …). */
  warnings: string[];
}) {
  return (
    <section aria-labelledby="evaluation-h" data-testid="final-evaluation">
      <h2 id="evaluation-h" className="row">
        Final evaluation <StatusBadge evaluation={evaluation} />
      </h2>
      <p className="small muted">
        Started {formatDate(evaluation.startedAt)}
        {evaluation.finishedAt && `, finished ${formatDate(evaluation.finishedAt)}`} ·{' '}
        {evaluation.rounds} rounds per target · error rate {formatErrorRate(evaluation.errorRate)} ·{' '}
        {evaluation.keptProvisionalSeed ? 'provisional seed' : 'fresh seed'} ·{' '}
        {evaluation.spreadAcrossHosts ? 'spread across hosts' : 'one host per target'}
      </p>
      {evaluation.message && (
        <p className={`notice ${evaluation.status === 'FAILED' ? 'error' : 'warn'}`}>
          {evaluation.message}
        </p>
      )}
      {evaluation.status === 'RUNNING' && (
        <>
          <AutoRefresh seconds={REFRESH_S} />
          <SessionsTable evaluation={evaluation} live={live} />
          <ReasonAction
            label="Cancel final evaluation"
            description="Its sessions are withdrawn from the queues; the rounds timed so far are kept for the record but nothing is ranked. You may start again."
            action={cancelFinalAction}
            input={{ evaluationId: evaluation.id }}
            danger
          />
        </>
      )}
      {evaluation.status !== 'RUNNING' && <SessionsTable evaluation={evaluation} live={null} />}
      {evaluation.status === 'DONE' && (
        <RankingSection evaluation={evaluation} contest={contest} warnings={warnings} />
      )}
    </section>
  );
}

function formulaOf(contest: Contest): 'SUM' | 'GEOMEAN' {
  return contest.manifest.scoring.formula === 'geomean' ? 'GEOMEAN' : 'SUM';
}

function StatusBadge({ evaluation }: { evaluation: FinalEvaluationView }) {
  const { status, publishedAt } = evaluation;
  if (status === 'RUNNING') return <span className="badge info">Running</span>;
  if (status === 'DONE')
    return publishedAt ? (
      <span className="badge ok">Published</span>
    ) : (
      <span className="badge warn">Done, not published</span>
    );
  if (status === 'FAILED') return <span className="badge bad">Failed</span>;
  return <span className="badge">Cancelled</span>;
}

const STAGE_WORDS: Record<string, string> = {
  queued: 'queued',
  waiting: 'waiting for the host',
  build: 'building',
  rounds: 'timing rounds',
  done: 'done',
  finished: 'finished',
};

/** Per target: the session's state, rounds done of planned, time left and the hosts that timed it. */
function SessionsTable({
  evaluation,
  live,
}: {
  evaluation: FinalEvaluationView;
  live: EvaluationLive | null;
}) {
  return (
    <div className="table-wrap">
      <table data-testid="final-sessions">
        <thead>
          <tr>
            <th>Target</th>
            <th>State</th>
            <th className="num">Rounds</th>
            <th>Progress</th>
            <th>Time left</th>
            <th>Hosts</th>
          </tr>
        </thead>
        <tbody>
          {evaluation.sessions.map((s) => (
            <SessionRow
              key={s.target}
              s={s}
              l={live?.sessions.find((x) => x.target === s.target)}
              running={evaluation.status === 'RUNNING'}
            />
          ))}
        </tbody>
      </table>
      {live && !live.live && (
        <p className="notice warn small">
          Redis could not be read: rounds are the ones the scorer recorded so far.
        </p>
      )}
    </div>
  );
}

/** What starting does, in words, above the start form. */
function StartSection({ slug, children }: { slug: string; children: React.ReactNode }) {
  return (
    <>
      <p className="small muted">
        Every finalist&apos;s selected submission and the baseline are built once and timed in
        interleaved rounds on one host per target, on one input from a fresh secret seed. Places are
        decided by pairwise comparisons at the error rate; finalists the judge cannot tell apart
        share a place. Or from the command line:{' '}
        <code>npx perfjudge final start --server … --token-file … --challenge {slug}</code>.
      </p>
      {children}
    </>
  );
}

/** One target's session: state, rounds, progress, time left, hosts (live figures when running). */
function SessionRow({
  s,
  l,
  running,
}: {
  s: FinalEvaluationView['sessions'][number];
  l: EvaluationLive['sessions'][number] | undefined;
  running: boolean;
}) {
  const done = l?.roundsDone ?? s.roundsDone;
  const planned = l?.roundsPlanned ?? s.roundsPlanned;
  const left = running ? formatTimeLeft(l?.etaMs ?? s.etaMs) : null;
  return (
    <tr data-testid={`final-session-${s.target}`}>
      <td className="mono nowrap">{s.target}</td>
      <td>
        {l ? STAGE_WORDS[l.stage] : s.status.toLowerCase()}
        {(l?.messages.length ?? 0) > 0 && (
          <div className="muted small">{l?.messages.join(' · ')}</div>
        )}
        {s.message && <div className="muted small">{s.message}</div>}
      </td>
      <td className="num nowrap" data-testid={`final-rounds-${s.target}`}>
        {done} / {planned}
      </td>
      <td style={{ minWidth: '8em' }}>
        <div
          className="progress"
          role="progressbar"
          aria-label={`${s.target} rounds`}
          aria-valuemin={0}
          aria-valuemax={planned}
          aria-valuenow={done}
        >
          <span style={{ width: `${planned > 0 ? (100 * done) / planned : 0}%` }} />
        </div>
      </td>
      <td className="nowrap">
        {!running ? (
          <span className="muted">–</span>
        ) : (
          (left ?? <span className="muted">not known yet</span>)
        )}
      </td>
      <td className="small">
        {s.hosts.length > 0 ? (
          s.hosts.join(', ')
        ) : (
          <span className="muted">{running ? 'none yet' : '–'}</span>
        )}
      </td>
    </tr>
  );
}

/** The ranking of a finished evaluation, how places were decided, and publishing it. */
function RankingSection({
  evaluation,
  contest,
  warnings,
}: {
  evaluation: FinalEvaluationView;
  contest: Contest;
  warnings: string[];
}) {
  return (
    <>
      <h3>Ranking</h3>
      <FinalRankingTable
        table={finalTable(
          { slug: contest.slug, title: contest.title, formula: formulaOf(contest) },
          evaluation,
        )}
        organizer
      />
      <RankingWarnings warnings={warnings} />
      <p className="small">{evaluation.method}</p>
      <p className="small muted">
        Error rate {formatErrorRate(evaluation.errorRate)}:{' '}
        {errorRateSentence(evaluation.errorRate)}
      </p>
      {evaluation.publishedAt ? (
        <p className="notice ok">
          Published {formatDate(evaluation.publishedAt)}:{' '}
          <Link href={`/challenges/${contest.slug}/final`}>the final leaderboard</Link> is the
          contest&apos;s result.
        </p>
      ) : (
        <ReasonAction
          label="Publish final results"
          description={`The final leaderboard becomes the contest's result, public at /challenges/${contest.slug}/final with CSV and Markdown; the provisional leaderboard stays, labelled provisional.`}
          action={publishFinalAction}
          input={{ evaluationId: evaluation.id }}
          askReason={false}
          warning={
            evaluation.entrants.some((e) => e.place !== null)
              ? undefined
              : 'No finalist is placed (every one was excluded): the published result would rank nobody. Starting again after fixing the cause may be better.'
          }
        />
      )}
    </>
  );
}

function FinalistsTable({ finalists }: { finalists: Finalist[] }) {
  return (
    <div className="table-wrap">
      <table data-testid="finalists">
        <thead>
          <tr>
            <th>Contestant</th>
            <th>Submission</th>
            <th className="num">Provisional score</th>
            <th>Counts because</th>
          </tr>
        </thead>
        <tbody>
          {finalists.map((f) => (
            <tr key={f.userId}>
              <td>
                <span className="ellipsis" title={f.userName}>
                  {f.userName}
                </span>
              </td>
              <td>
                <Link href={`/organizer/submissions/${f.submissionId}`} className="mono small">
                  {f.submissionId}
                </Link>
              </td>
              <td className="num">{formatScore(f.score)}</td>
              <td>
                {f.selectedExplicitly ? (
                  <>
                    <span className="badge info">chosen</span>
                    {f.bestSubmissionId !== f.submissionId && (
                      <span className="muted small">
                        {' '}
                        (their best is{' '}
                        <Link href={`/organizer/submissions/${f.bestSubmissionId}`}>
                          {formatScore(f.bestScore)}
                        </Link>
                        )
                      </span>
                    )}
                  </>
                ) : (
                  <span className="badge">best score, by default</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Whether the contest is open, and the links to its settings, submissions and public page. */
function ContestState({ contest }: { contest: Contest }) {
  return (
    <p className="row">
      <ContestOpenState contest={contest} />
      <Link href={`/organizer/challenges/${contest.slug}/settings`}>Settings</Link>
      <Link href={`/organizer/submissions?challenge=${contest.slug}`}>Its submissions</Link>
      <Link href={`/challenges/${contest.slug}/final`}>Public final page</Link>
    </p>
  );
}

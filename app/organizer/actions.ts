'use server';
// The organizer console's server actions. Each goes through safeAction (signed in, organizer role,
// input parsed with zod) and each change is audit-logged by the data function it calls.
import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { closeContest } from '../../lib/server/db/contest/close-contest';
import { db } from '../../lib/server/db/client';
import { disqualifySubmission } from '../../lib/server/db/submissions/disqualify-submission';
import { publishSolutions } from '../../lib/server/db/contest/publish-solutions';
import { reinstateSubmission } from '../../lib/server/db/submissions/reinstate-submission';
import { updateContestSettings } from '../../lib/server/db/contest/update-contest-settings';
import {
  cancelFinalEvaluation,
  publishFinalResults,
  requestRepeatJudgings,
  startFinalEvaluation,
} from '../../lib/server/submit/final-evaluation';
import { rejudge } from '../../lib/server/submit/rejudge';
import {
  evaluationIdSchema,
  repeatFormSchema,
  startFinalFormSchema,
} from '../../lib/server/web/final-forms';
import {
  idSchema,
  reasonSchema,
  settingsFormSchema,
  slugSchema,
} from '../../lib/server/web/organizer-settings-form';
import { safeAction } from '../../lib/server/web/safe-action';
import { webQueues } from '../../lib/server/web/services';

/** Every console action answers with a sentence the console shows. */
export interface ConsoleOutcome {
  message: string;
}

const ORGANIZER = { role: 'ORGANIZER' } as const;

/** Contest state shows on public pages (challenge, leaderboard, submissions): refresh them all. */
function refreshPages(): void {
  revalidatePath('/', 'layout');
}

function rejudgeMessage(outcome: { submissions: number; judgings: number; queued: number }) {
  const what =
    `${outcome.judgings} judging${outcome.judgings === 1 ? '' : 's'} of ` +
    `${outcome.submissions} submission${outcome.submissions === 1 ? '' : 's'}`;
  const notQueued = outcome.submissions - outcome.queued;
  if (notQueued === 0) return `Rejudge started: ${what} queued again.`;
  return (
    `Rejudge recorded for ${what}, but Redis did not take ${notQueued} of the submissions now; ` +
    `the reconciler queues ${notQueued === 1 ? 'it' : 'them'} within a minute.`
  );
}

/** One rejudge (a submission, or every submission of a challenge), refreshed pages and its outcome in words. */
async function runRejudge(
  actorId: string,
  reason: string,
  scope: { submissionId: string } | { challengeSlug: string },
): Promise<ConsoleOutcome> {
  const outcome = await rejudge({
    db: db(),
    queues: webQueues(),
    actorId,
    reason,
    ...scope,
    onEnqueueError: (error, id) => console.error(`web: rejudge ${id}: ${error.message}`),
  });
  refreshPages();
  return { message: rejudgeMessage(outcome) };
}

export const rejudgeSubmissionAction = safeAction(
  z.strictObject({ submissionId: idSchema, reason: reasonSchema }),
  (input, user) => runRejudge(user.id, input.reason, { submissionId: input.submissionId }),
  ORGANIZER,
);

export const rejudgeChallengeAction = safeAction(
  z.strictObject({ slug: slugSchema, reason: reasonSchema }),
  (input, user) => runRejudge(user.id, input.reason, { challengeSlug: input.slug }),
  ORGANIZER,
);

export const disqualifyAction = safeAction(
  z.strictObject({ submissionId: idSchema, reason: reasonSchema }),
  async (input, user): Promise<ConsoleOutcome> => {
    await disqualifySubmission(db(), {
      actorId: user.id,
      submissionId: input.submissionId,
      reason: input.reason,
    });
    refreshPages();
    return { message: 'Disqualified; the leaderboard no longer counts this submission.' };
  },
  ORGANIZER,
);

export const reinstateAction = safeAction(
  z.strictObject({ submissionId: idSchema, reason: reasonSchema }),
  async (input, user): Promise<ConsoleOutcome> => {
    await reinstateSubmission(db(), {
      actorId: user.id,
      submissionId: input.submissionId,
      reason: input.reason,
    });
    refreshPages();
    return { message: 'Reinstated; the leaderboard counts this submission again.' };
  },
  ORGANIZER,
);

/** The settings' names as the form labels them, for the "Saved the …" message. */
const SETTING_WORDS: Record<string, string> = {
  deadline: 'deadline',
  submissionsPerHour: 'submissions an hour',
  precision: 'target precision',
  benchmarkBytes: 'benchmark input size',
  benchmarkSeed: 'benchmark seed',
  cachegrind: 'cachegrind profile',
};
function settingWords(field: string): string {
  return SETTING_WORDS[field] ?? field;
}

export const updateSettingsAction = safeAction(
  settingsFormSchema,
  async (input, user): Promise<ConsoleOutcome> => {
    const { changed, benchmark } = await updateContestSettings(db(), {
      actorId: user.id,
      slug: input.slug,
      settings: {
        deadline: input.deadline,
        submissionsPerHour: input.submissionsPerHour,
        precision: input.precision,
        benchmarkBytes: input.benchmarkSize,
        judgeAllTargets: input.judgeAllTargets,
        supersedeQueued: input.supersedeQueued,
        cachegrind: input.cachegrind,
        ...(input.clearSeed
          ? { benchmarkSeed: null }
          : input.benchmarkSeed !== ''
            ? { benchmarkSeed: input.benchmarkSeed }
            : {}),
      },
      ...(input.benchmarkScores ? { benchmarkScores: input.benchmarkScores } : {}),
      ...(input.reason ? { reason: input.reason } : {}),
    });
    const saved =
      changed.length === 0
        ? 'Nothing changed.'
        : `Saved the ${changed.map(settingWords).join(', ')}. New submissions and rejudges are judged with these settings.`;
    if (!benchmark) {
      refreshPages();
      return { message: saved };
    }
    if (benchmark.scores === 'new-board') {
      refreshPages();
      return {
        message: `${saved} Benchmark definition revision ${benchmark.revision}: a new leaderboard starts now (earlier submissions keep their results, unranked).`,
      };
    }
    const rejudged = await runRejudge(
      user.id,
      input.reason || `benchmark definition revision ${benchmark.revision}`,
      { challengeSlug: input.slug },
    );
    return {
      message: `${saved} Benchmark definition revision ${benchmark.revision}: ${rejudged.message}`,
    };
  },
  ORGANIZER,
);

export const closeContestAction = safeAction(
  z.strictObject({ slug: slugSchema, closed: z.boolean(), reason: reasonSchema }),
  async (input, user): Promise<ConsoleOutcome> => {
    const closedAt = await closeContest(db(), { actorId: user.id, ...input });
    refreshPages();
    return {
      message: closedAt
        ? 'The contest is closed: new submissions are refused.'
        : 'The contest is open again (until its deadline, if it has one).',
    };
  },
  ORGANIZER,
);

export const publishSolutionsAction = safeAction(
  z.strictObject({ slug: slugSchema, published: z.boolean(), reason: reasonSchema }),
  async (input, user): Promise<ConsoleOutcome> => {
    const at = await publishSolutions(db(), { actorId: user.id, ...input });
    refreshPages();
    return {
      message: at
        ? 'Solutions published: everyone can read every patch now.'
        : 'Solutions hidden again: a patch is visible only to its author and the organizers.',
    };
  },
  ORGANIZER,
);

export const startFinalAction = safeAction(
  startFinalFormSchema,
  async (input, user): Promise<ConsoleOutcome> => {
    const started = await startFinalEvaluation({
      db: db(),
      queues: webQueues(),
      actorId: user.id,
      challengeSlug: input.slug,
      keepProvisionalSeed: input.keepProvisionalSeed,
      rounds: input.rounds,
      spreadAcrossHosts: input.spreadAcrossHosts,
      errorRate: input.errorRate,
      onEnqueueError: (error) => console.error(`web: final evaluation: ${error.message}`),
    });
    refreshPages();
    return {
      message:
        `Final evaluation started: ${started.finalists} finalist${started.finalists === 1 ? '' : 's'} ` +
        `in ${started.sessions} session${started.sessions === 1 ? '' : 's'}` +
        (started.queuedParts < started.sessions
          ? '; Redis did not take every session now, the reconciler queues the rest within a minute.'
          : '.'),
    };
  },
  ORGANIZER,
);

export const cancelFinalAction = safeAction(
  z.strictObject({ evaluationId: evaluationIdSchema, reason: reasonSchema }),
  async (input, user): Promise<ConsoleOutcome> => {
    await cancelFinalEvaluation({
      db: db(),
      queues: webQueues(),
      actorId: user.id,
      evaluationId: input.evaluationId,
      reason: input.reason,
    });
    refreshPages();
    return { message: 'Final evaluation cancelled: its sessions are withdrawn.' };
  },
  ORGANIZER,
);

export const publishFinalAction = safeAction(
  z.strictObject({ evaluationId: evaluationIdSchema }),
  async (input, user): Promise<ConsoleOutcome> => {
    await publishFinalResults({ db: db(), actorId: user.id, evaluationId: input.evaluationId });
    refreshPages();
    return { message: 'Final results published: the final leaderboard is the contest’s result.' };
  },
  ORGANIZER,
);

export const repeatJudgingsAction = safeAction(
  repeatFormSchema,
  async (input, user): Promise<ConsoleOutcome> => {
    const series = await requestRepeatJudgings({
      db: db(),
      queues: webQueues(),
      actorId: user.id,
      submissionId: input.submissionId,
      times: input.times,
      ...(input.target ? { target: input.target } : {}),
      reason: input.reason,
      onEnqueueError: (error) => console.error(`web: repeat judgings: ${error.message}`),
    });
    revalidatePath(`/organizer/submissions/${input.submissionId}`);
    return {
      message: `${series.judgings} repeat judging${series.judgings === 1 ? '' : 's'} queued; they never change the submission's score.`,
    };
  },
  ORGANIZER,
);

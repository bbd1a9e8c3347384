// The organizer's actions on one submission, wherever it is shown (the list, the diff): rejudge,
// and disqualify or reinstate by its state.
import { disqualifyAction, reinstateAction, rejudgeSubmissionAction } from '../actions';
import { ReasonAction } from './reason-action';

export function SubmissionActions({
  submissionId,
  disqualified,
  compact,
}: {
  submissionId: string;
  disqualified: boolean;
  /** Smaller buttons, for table rows. */
  compact?: boolean;
}) {
  return (
    <>
      <ReasonAction
        label="Rejudge"
        description="Judge this submission again on every target (its current results are cleared)."
        action={rejudgeSubmissionAction}
        input={{ submissionId }}
        compact={compact}
      />
      {disqualified ? (
        <ReasonAction
          label="Reinstate"
          description="Take back the disqualification: the leaderboard counts it again."
          action={reinstateAction}
          input={{ submissionId }}
          compact={compact}
        />
      ) : (
        <ReasonAction
          label="Disqualify"
          description="The leaderboard stops counting this submission; the contestant sees the reason."
          action={disqualifyAction}
          input={{ submissionId }}
          danger
          compact={compact}
        />
      )}
    </>
  );
}

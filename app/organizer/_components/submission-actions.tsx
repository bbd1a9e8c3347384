// The organizer's actions on one submission, wherever it is shown (the list, the diff): rejudge,
// and disqualify or reinstate by its state.
import { disqualifyAction, reinstateAction, rejudgeSubmissionAction } from '../actions';
import { ReasonAction } from './reason-action';

const REJUDGE = {
  label: 'Rejudge',
  description: 'Judge this submission again on every target (its current results are cleared).',
  action: rejudgeSubmissionAction,
};
const REINSTATE = {
  label: 'Reinstate',
  description: 'Take back the disqualification: the leaderboard counts it again.',
  action: reinstateAction,
};
const DISQUALIFY = {
  label: 'Disqualify',
  description: 'The leaderboard stops counting this submission; the contestant sees the reason.',
  action: disqualifyAction,
  danger: true,
};

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
      {/* Keyed by place: the second button keeps its answer when it turns into the other. */}
      {[REJUDGE, disqualified ? REINSTATE : DISQUALIFY].map((props, place) => (
        <ReasonAction key={place} {...props} input={{ submissionId }} compact={compact} />
      ))}
    </>
  );
}

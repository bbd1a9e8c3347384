'use client';
// One button of the final selection ("Count this one for the final", "Back to my best"): it calls
// its server action, shows the answer or the refusal in words, and refreshes the page.
import { useServerAction, type ServerAction } from '../../_components/server-action';

export function FinalChoiceButton({
  label,
  action,
  input,
  secondary,
}: {
  label: string;
  action: ServerAction;
  input: Record<string, string>;
  secondary?: boolean;
}) {
  const { outcome, setOutcome, busy, run } = useServerAction(action);

  async function onClick() {
    setOutcome(null);
    await run(input);
  }

  return (
    <span className="final-choice">
      <button
        type="button"
        className={`${secondary ? 'secondary ' : ''}small`}
        onClick={onClick}
        disabled={busy}
      >
        {busy ? 'Working…' : label}
      </button>
      {outcome && (
        <span
          className={`small ${outcome.ok ? 'ok-text' : 'bad-text'}`}
          role={outcome.ok ? 'status' : 'alert'}
        >
          {outcome.text}
        </span>
      )}
    </span>
  );
}

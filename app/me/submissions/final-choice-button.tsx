'use client';
// One button of the final selection ("Count this one for the final", "Back to my best"): it calls
// its server action, shows the answer or the refusal in words, and refreshes the page.
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import type { ActionResult } from '../../../lib/web/safe-action';

export function FinalChoiceButton({
  label,
  action,
  input,
  secondary,
}: {
  label: string;
  action: (input: unknown) => Promise<ActionResult<{ message: string }>>;
  input: Record<string, string>;
  secondary?: boolean;
}) {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);

  async function onClick() {
    setBusy(true);
    setOutcome(null);
    try {
      const result = await action(input);
      if (result.ok) {
        setOutcome({ ok: true, text: result.data.message });
        router.refresh();
      } else {
        setOutcome({ ok: false, text: result.error });
      }
    } catch {
      setOutcome({ ok: false, text: 'The server could not be reached. Try again.' });
    } finally {
      setBusy(false);
    }
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

'use client';
// What a form or button does with its server action: busy while it runs, the server's answer or
// refusal in words, its field errors next to the fields, and a page refresh once it is done.
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import type { ActionResult } from '../../lib/server/web/safe-action';

export type ServerAction = (input: unknown) => Promise<ActionResult<{ message: string }>>;

export interface Outcome {
  ok: boolean;
  text: string;
}

/** How a run ended: done, refused by the server (its words shown), or no answer at all. */
export type RunEnd = 'done' | 'refused' | 'unreachable';

/** The action's state; field errors are tied to their inputs by ids `${idPrefix}${name}-error`. */
export function useServerAction(action: ServerAction, idPrefix = '') {
  const router = useRouter();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [busy, setBusy] = useState(false);

  async function run(input: unknown): Promise<RunEnd> {
    setBusy(true);
    try {
      const result = await action(input);
      if (result.ok) {
        setOutcome({ ok: true, text: result.data.message });
        router.refresh();
        return 'done';
      }
      setErrors(result.fieldErrors ?? {});
      setOutcome({ ok: false, text: result.error });
      return 'refused';
    } catch {
      setOutcome({ ok: false, text: 'The server could not be reached. Try again.' });
      return 'unreachable';
    } finally {
      setBusy(false);
    }
  }

  const errorId = (name: string) => `${idPrefix}${name}-error`;
  /** A field's error message, next to it. */
  const error = (name: string) =>
    errors[name] ? (
      <span id={errorId(name)} className="field-error">
        {errors[name]}
      </span>
    ) : null;
  /** The attributes that tie a field's input to its error. */
  const described = (name: string) =>
    errors[name] ? { 'aria-invalid': true as const, 'aria-describedby': errorId(name) } : {};

  return { errors, setErrors, outcome, setOutcome, busy, run, error, described };
}

export function OutcomeNotice({ outcome, small }: { outcome: Outcome | null; small?: boolean }) {
  if (!outcome) return null;
  return (
    <div
      className={`notice ${outcome.ok ? 'ok' : 'error'}${small ? ' small' : ''}`}
      role={outcome.ok ? 'status' : 'alert'}
    >
      {outcome.text}
    </div>
  );
}

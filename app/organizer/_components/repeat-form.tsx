'use client';
// "Rejudge N times": N independent judgings of one submission on one target (or every target), to
// settle a dispute with numbers. They never change the submission's verdict, score or row. Checked
// with the server action's zod schema; the server's answer or refusal is shown in words.
import type { FormEvent } from 'react';
import { fieldErrors } from '../../../contracts/zod-issues';
import {
  MAX_REPEATS,
  MIN_REPEATS,
  repeatFormSchema,
  type RepeatFormInput,
} from '../../../lib/server/web/final-forms';
import { REASON_MAX } from '../../../lib/server/web/organizer-settings-form';
import { OutcomeNotice, useServerAction, type ServerAction } from '../../_components/server-action';

export function RepeatForm({
  submissionId,
  targets,
  action,
}: {
  submissionId: string;
  targets: string[];
  action: ServerAction;
}) {
  const { setErrors, outcome, setOutcome, busy, run, error, described } = useServerAction(
    action,
    'repeat-',
  );

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const input = {
      submissionId,
      times: String(form.get('times') ?? ''),
      target: String(form.get('target') ?? ''),
      reason: String(form.get('reason') ?? ''),
    } as RepeatFormInput;
    const parsed = repeatFormSchema.safeParse(input);
    if (!parsed.success) {
      setErrors(fieldErrors(parsed.error));
      setOutcome({ ok: false, text: 'Some fields need attention.' });
      return;
    }
    setErrors({});
    if ((await run(input)) === 'done')
      formElement.querySelector<HTMLTextAreaElement>('textarea[name="reason"]')!.value = '';
  }

  return (
    <form className="stack card" onSubmit={onSubmit} noValidate aria-label="Rejudge N times">
      <h3 style={{ margin: 0 }}>Rejudge N times</h3>
      <p className="small muted">
        Independent judgings on the same target, side by side with their spread. They never change
        this submission&apos;s verdict, score or leaderboard row, and wait behind new submissions.
      </p>
      <OutcomeNotice outcome={outcome} small />
      <RepeatFields targets={targets} described={described} error={error} />
      <label>
        Reason
        <span className="hint">
          Goes in the audit log with your name. At most {REASON_MAX} characters.
        </span>
        <textarea name="reason" rows={2} maxLength={REASON_MAX} required {...described('reason')} />
        {error('reason')}
      </label>
      <div className="row">
        <button type="submit" disabled={busy}>
          {busy ? 'Working…' : 'Rejudge N times'}
        </button>
      </div>
    </form>
  );
}

/** How many judgings, and on which target. */
function RepeatFields({
  targets,
  described,
  error,
}: Pick<ReturnType<typeof useServerAction>, 'described' | 'error'> & { targets: string[] }) {
  return (
    <>
      <label>
        Times
        <span className="hint">
          From {MIN_REPEATS} to {MAX_REPEATS}.
        </span>
        <input
          name="times"
          type="number"
          min={MIN_REPEATS}
          max={MAX_REPEATS}
          step={1}
          defaultValue={5}
          inputMode="numeric"
          {...described('times')}
        />
        {error('times')}
      </label>
      <label>
        Target
        <select name="target" defaultValue="" {...described('target')}>
          <option value="">every target</option>
          {targets.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
        {error('target')}
      </label>
    </>
  );
}

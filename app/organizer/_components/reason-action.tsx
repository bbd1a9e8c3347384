'use client';
// A console action that needs a reason and a second look: the button opens a modal dialog with a
// "Reason" box and Confirm / Cancel (a dialog, not an inline form, so a table cell never clips it);
// an action with a warning also asks for an explicit "do it anyway". An action whose data function
// takes no reason (publishing the final results) asks only for the confirmation. The server's
// answer (or its refusal) is shown in words.
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { firstIssue } from '../../../contracts/zod-issues';
import { reasonSchema, REASON_MAX } from '../../../lib/server/web/organizer-settings-form';
import { OutcomeNotice, useServerAction, type ServerAction } from '../../_components/server-action';

export interface ReasonActionProps {
  /** The button's name, e.g. "Disqualify" (tests find it by this name). */
  label: string;
  /** What will happen, shown above the reason box. */
  description: string;
  /** A server action from app/organizer/actions.ts. */
  action: ServerAction;
  /** The action's other fields (submission id, slug, flags); the reason is added. */
  input: Record<string, string | boolean>;
  danger?: boolean;
  /** Smaller, for table rows. */
  compact?: boolean;
  /** A reason to think twice (publishing while the contest is open): must be acknowledged. */
  warning?: string;
  /** False: Confirm / Cancel only (the action takes no reason). */
  askReason?: boolean;
}

export function ReasonAction({
  label,
  description,
  action,
  input,
  danger,
  compact,
  warning,
  askReason = true,
}: ReasonActionProps) {
  const id = useId();
  const dialog = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(false);
  const [acknowledged, setAcknowledged] = useState(false);
  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  const { errors, setErrors, outcome, setOutcome, busy, run } = useServerAction(action);
  const reasonError = errors.reason ?? null;

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    let fields: Record<string, string | boolean> = input;
    if (askReason) {
      const reason = reasonSchema.safeParse(new FormData(event.currentTarget).get('reason') ?? '');
      if (!reason.success) {
        setErrors({ reason: firstIssue(reason.error, 'Give a reason') });
        return;
      }
      fields = { ...input, reason: reason.data };
    }
    setErrors({});
    if ((await run(fields)) === 'done') setOpen(false);
  }

  const buttonClass = `${danger ? 'danger' : 'secondary'}${compact ? ' small' : ''}`;
  return (
    <div className="reason-action">
      <button
        type="button"
        className={buttonClass}
        aria-haspopup="dialog"
        aria-expanded={open}
        onClick={() => {
          setOpen(true);
          setAcknowledged(false);
          setOutcome(null);
        }}
      >
        {label}
      </button>
      <dialog
        ref={dialog}
        className="reason-dialog"
        aria-label={label}
        // Escape closes the dialog natively: keep the state in step.
        onClose={() => setOpen(false)}
      >
        {open && (
          <ReasonForm
            id={id}
            label={label}
            description={description}
            warning={warning}
            acknowledged={acknowledged}
            setAcknowledged={setAcknowledged}
            askReason={askReason}
            reasonError={reasonError}
            danger={danger}
            busy={busy}
            onSubmit={onSubmit}
            onCancel={() => setOpen(false)}
          />
        )}
      </dialog>
      <OutcomeNotice outcome={outcome} small />
    </div>
  );
}

/** The dialog's form: what will happen, the warning to acknowledge, the reason, Confirm / Cancel. */
function ReasonForm({
  id,
  label,
  description,
  warning,
  acknowledged,
  setAcknowledged,
  askReason,
  reasonError,
  danger,
  busy,
  onSubmit,
  onCancel,
}: Pick<ReasonActionProps, 'label' | 'description' | 'warning' | 'danger'> & {
  id: string;
  acknowledged: boolean;
  setAcknowledged: (acknowledged: boolean) => void;
  askReason: boolean;
  reasonError: string | null;
  busy: boolean;
  onSubmit: (event: FormEvent<HTMLFormElement>) => void;
  onCancel: () => void;
}) {
  return (
    <form className="stack reason-form" onSubmit={onSubmit} noValidate aria-label={label}>
      <h3 style={{ margin: 0 }}>{label}</h3>
      <p className="small">{description}</p>
      {warning && (
        <div className="notice warn small">
          <p style={{ margin: 0 }}>{warning}</p>
          <label className="row" style={{ marginTop: '0.4em' }}>
            <input
              type="checkbox"
              checked={acknowledged}
              onChange={(e) => setAcknowledged(e.target.checked)}
            />
            Do it anyway
          </label>
        </div>
      )}
      {askReason && (
        <>
          <label htmlFor={`${id}-reason`}>
            Reason
            <span className="hint">
              Goes in the audit log with your name. At most {REASON_MAX} characters.
            </span>
          </label>
          <textarea
            id={`${id}-reason`}
            name="reason"
            rows={2}
            maxLength={REASON_MAX}
            required
            autoFocus
            aria-invalid={reasonError ? true : undefined}
            aria-describedby={reasonError ? `${id}-error` : undefined}
          />
        </>
      )}
      {reasonError && (
        <span id={`${id}-error`} className="field-error">
          {reasonError}
        </span>
      )}
      <div className="row">
        <button
          type="submit"
          className={danger ? 'danger' : undefined}
          disabled={busy || (warning !== undefined && !acknowledged)}
        >
          {busy ? 'Working…' : 'Confirm'}
        </button>
        <button type="button" className="secondary" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}

'use client';
// Starting the final evaluation: rounds, error rate, keep the provisional seed, spread across hosts;
// checked with the server action's zod schema, then a confirmation dialog that says what will run
// (like the publish confirmation), then the server's answer or refusal in words.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { fieldErrors } from '../../../contracts/zod-issues';
import {
  MAX_FINAL_ROUNDS,
  MIN_FINAL_ROUNDS,
  startFinalFormSchema,
  type StartFinalFormInput,
} from '../../../lib/server/web/final-forms';
import { formatErrorRate } from '../../../lib/server/web/final-words';
import { roundsToSeparateFinalists } from '../../../lib/core/ranking/places';
import { OutcomeNotice, useServerAction, type ServerAction } from '../../_components/server-action';

export interface FinalStartFormProps {
  slug: string;
  finalists: number;
  targets: string[];
  defaultRounds: number;
  defaultErrorRate: number;
  /** Why it cannot start now (before the deadline, already running); null when it can. */
  refusal: string | null;
  action: ServerAction;
}

export function FinalStartForm(props: FinalStartFormProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  /** The form's text, and its error rate as parsed, while the confirmation is open. */
  const [pending, setPending] = useState<(StartFinalFormInput & { rate: number }) | null>(null);
  const { setErrors, outcome, setOutcome, busy, run, error, described } = useServerAction(
    props.action,
    'final-',
  );
  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (pending && !d.open) d.showModal();
    if (!pending && d.open) d.close();
  }, [pending]);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const input: StartFinalFormInput = {
      slug: props.slug,
      rounds: String(form.get('rounds') ?? ''),
      errorRate: String(form.get('errorRate') ?? ''),
      keepProvisionalSeed: form.get('keepProvisionalSeed') === 'on',
      spreadAcrossHosts: form.get('spreadAcrossHosts') === 'on',
    };
    const parsed = startFinalFormSchema.safeParse(input);
    if (!parsed.success) {
      setErrors(fieldErrors(parsed.error));
      setOutcome({ ok: false, text: 'Some fields need attention.' });
      return;
    }
    setErrors({});
    setOutcome(null);
    setPending({ ...input, rate: parsed.data.errorRate });
  }

  async function confirm() {
    if (!pending) return;
    const { rate: _rate, ...input } = pending;
    // Unanswered, the confirmation stays open to try again.
    if ((await run(input)) !== 'unreachable') setPending(null);
  }

  return (
    <form
      className="stack card"
      onSubmit={onSubmit}
      noValidate
      aria-label="Start the final evaluation"
    >
      <OutcomeNotice outcome={outcome} />
      {props.refusal && (
        <div className="notice warn" data-testid="final-refusal">
          {props.refusal}
        </div>
      )}
      <FinalStartFields {...props} described={described} error={error} />
      <div className="row">
        <button type="submit" className="danger" disabled={props.refusal !== null || busy}>
          Start final evaluation
        </button>
        <span className="muted small">
          {props.finalists} finalist{props.finalists === 1 ? '' : 's'} on{' '}
          {props.targets.join(', ') || 'no target'}.
        </span>
      </div>
      <dialog
        ref={dialog}
        className="reason-dialog"
        aria-label="Start final evaluation"
        onClose={() => setPending(null)}
      >
        {pending && (
          <ConfirmStart
            {...props}
            pending={pending}
            busy={busy}
            onConfirm={confirm}
            onCancel={() => setPending(null)}
          />
        )}
      </dialog>
    </form>
  );
}

type FieldHelpers = Pick<ReturnType<typeof useServerAction>, 'described' | 'error'>;

/** The rounds, the error rate and the two choices, with what each means. */
function FinalStartFields(props: FinalStartFormProps & FieldHelpers) {
  const { described, error } = props;
  return (
    <>
      <label>
        Rounds per target
        <span className="hint">
          Each round runs the baseline and every finalist once, in a rotated order. From{' '}
          {MIN_FINAL_ROUNDS} to {MAX_FINAL_ROUNDS}; more rounds tell closer finalists apart.
          {props.finalists > 1 && (
            <>
              {' '}
              <span data-testid="final-rounds-needed">
                With {props.finalists} finalists and a {formatErrorRate(props.defaultErrorRate)}{' '}
                error rate, at least{' '}
                {roundsToSeparateFinalists(props.finalists, props.defaultErrorRate)} rounds are
                needed to separate any two of them at all (one ahead in every round); finalists
                within the run-to-run noise of each other need several times more.
              </span>
            </>
          )}
        </span>
        <input
          name="rounds"
          type="number"
          min={MIN_FINAL_ROUNDS}
          max={MAX_FINAL_ROUNDS}
          step={1}
          inputMode="numeric"
          defaultValue={props.defaultRounds}
          {...described('rounds')}
        />
        {error('rounds')}
      </label>
      <label>
        Error rate
        <span className="hint">
          The chance, over all the pairwise comparisons together, that a place puts a finalist above
          one who is in truth no slower (0.05 or 5%).
        </span>
        <input
          name="errorRate"
          type="text"
          inputMode="decimal"
          autoComplete="off"
          defaultValue={String(props.defaultErrorRate)}
          {...described('errorRate')}
        />
        {error('errorRate')}
      </label>
      <label
        className="row"
        style={{ fontWeight: 400, flexWrap: 'nowrap', alignItems: 'flex-start' }}
      >
        <input type="checkbox" name="keepProvisionalSeed" /> Keep the provisional benchmark seed (by
        default the session&apos;s input comes from a fresh secret seed that no provisional judging
        used)
      </label>
      <label
        className="row"
        style={{ fontWeight: 400, flexWrap: 'nowrap', alignItems: 'flex-start' }}
      >
        <input type="checkbox" name="spreadAcrossHosts" /> Spread the rounds across a target&apos;s
        runners (each host times its own baseline; by default one host times every finalist, so the
        ranking compares like with like)
      </label>
    </>
  );
}

/** What the confirmation says will run, with a warning when the rounds cannot separate anyone. */
function ConfirmStart(
  props: FinalStartFormProps & {
    pending: StartFinalFormInput & { rate: number };
    busy: boolean;
    onConfirm: () => void;
    onCancel: () => void;
  },
) {
  return (
    <div className="stack reason-form">
      <h3 style={{ margin: 0 }}>Start final evaluation</h3>
      <p className="small">
        {props.finalists} finalist{props.finalists === 1 ? '' : 's'} and the baseline,{' '}
        {props.pending.rounds} rounds on each of {props.targets.length} target
        {props.targets.length === 1 ? '' : 's'} ({props.targets.join(', ')}), error rate{' '}
        {formatErrorRate(props.pending.rate)},{' '}
        {props.pending.keepProvisionalSeed ? 'on the provisional seed' : 'on a fresh secret seed'}
        {props.pending.spreadAcrossHosts ? ', spread across hosts' : ', one host per target'}.
      </p>
      {props.finalists > 1 &&
        Number(props.pending.rounds) <
          roundsToSeparateFinalists(props.finalists, props.pending.rate) && (
          <p className="notice warn small" data-testid="final-too-few-rounds">
            With {props.pending.rounds} rounds the judge cannot separate any two of the{' '}
            {props.finalists} finalists at a {formatErrorRate(props.pending.rate)} error rate: every
            finalist would share one place. At least{' '}
            {roundsToSeparateFinalists(props.finalists, props.pending.rate)} rounds are needed.
          </p>
        )}
      <p className="small muted">
        Selections are fixed from now on. The public sees &quot;Final evaluation in progress&quot;
        until you publish the results.
      </p>
      <div className="row">
        <button type="button" className="danger" onClick={props.onConfirm} disabled={props.busy}>
          {props.busy ? 'Working…' : 'Confirm'}
        </button>
        <button type="button" className="secondary" onClick={props.onCancel} disabled={props.busy}>
          Cancel
        </button>
      </div>
    </div>
  );
}

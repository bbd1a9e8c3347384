'use client';
// The challenge settings form: checked with the same zod schema as the server action as the
// organizer submits, field errors next to the fields (the server's too), the seed write-only.
import type { FormEvent } from 'react';
import {
  REASON_MAX,
  settingsFieldErrors,
  settingsFormSchema,
} from '../../../lib/server/web/organizer-settings-form';
import { OutcomeNotice, useServerAction, type ServerAction } from '../../_components/server-action';

export interface SettingsFormValues {
  slug: string;
  /** "YYYY-MM-DDTHH:MM" in UTC, or empty. */
  deadline: string;
  submissionsPerHour: string;
  precision: string;
  benchmarkSize: string;
  seedSet: boolean;
  judgeAllTargets: boolean;
  supersedeQueued: boolean;
  cachegrind: boolean;
  /** The contest's benchmark definition now, in one line (describeDefinition). */
  definition: string;
  /** The manifest's values, shown as what an empty field means. */
  defaults: { submissionsPerHour: string; precision: string; benchmarkSize: string };
}

export function SettingsForm({
  values,
  action,
}: {
  values: SettingsFormValues;
  action: ServerAction;
}) {
  const { setErrors, outcome, setOutcome, busy, run, error, described } = useServerAction(action);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const input = readSettingsInput(new FormData(event.currentTarget), values.slug);
    const parsed = settingsFormSchema.safeParse(input);
    if (!parsed.success) {
      setErrors(settingsFieldErrors(parsed.error));
      setOutcome({ ok: false, text: 'Some fields need attention.' });
      return;
    }
    setErrors({});
    // The text, not the parsed values: the action parses it again itself.
    if ((await run(input)) === 'done')
      (event.target as HTMLFormElement).querySelector<HTMLInputElement>(
        'input[name="benchmarkSeed"]',
      )!.value = '';
  }

  const field = fieldMaker({ described, error });

  return (
    <form className="stack card" onSubmit={onSubmit} noValidate aria-label="Challenge settings">
      <OutcomeNotice outcome={outcome} />
      <LimitFields field={field} values={values} />
      <BenchmarkFields field={field} values={values} described={described} error={error} />
      <JudgingChoices values={values} />
      {field('reason', 'Note for the audit log (optional)', `At most ${REASON_MAX} characters.`, {
        type: 'text',
        maxLength: REASON_MAX,
      })}
      <div className="row">
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Save settings'}
        </button>
        <span className="muted small">New submissions and rejudges use the saved settings.</span>
      </div>
    </form>
  );
}

/** The form's text as the action takes it (the action parses it again itself). */
function readSettingsInput(form: FormData, slug: string) {
  return {
    slug,
    deadline: String(form.get('deadline') ?? ''),
    submissionsPerHour: String(form.get('submissionsPerHour') ?? ''),
    precision: String(form.get('precision') ?? ''),
    benchmarkSize: String(form.get('benchmarkSize') ?? ''),
    benchmarkSeed: String(form.get('benchmarkSeed') ?? ''),
    clearSeed: form.get('clearSeed') === 'on',
    benchmarkScores: String(form.get('benchmarkScores') ?? ''),
    judgeAllTargets: form.get('judgeAllTargets') === 'on',
    supersedeQueued: form.get('supersedeQueued') === 'on',
    cachegrind: form.get('cachegrind') === 'on',
    reason: String(form.get('reason') ?? ''),
  };
}

type FieldHelpers = Pick<ReturnType<typeof useServerAction>, 'described' | 'error'>;
type Field = ReturnType<typeof fieldMaker>;

/** A labelled input with its hint and its error. */
function fieldMaker({ described, error }: FieldHelpers) {
  return (
    name: string,
    label: string,
    hint: string,
    props: React.InputHTMLAttributes<HTMLInputElement>,
  ) => (
    <label>
      {label}
      <span className="hint">{hint}</span>
      <input name={name} {...described(name)} {...props} />
      {error(name)}
    </label>
  );
}

/** The deadline, the quota, the precision and the benchmark size, each empty for its default. */
function LimitFields({ field, values }: { field: Field; values: SettingsFormValues }) {
  return (
    <>
      {field(
        'deadline',
        'Deadline (UTC)',
        'Submissions are refused after it. Empty: no deadline.',
        {
          type: 'datetime-local',
          defaultValue: values.deadline,
          step: 60,
        },
      )}
      {field(
        'submissionsPerHour',
        'Submissions per hour',
        `Each contestant's hourly quota. Empty: the manifest's ${values.defaults.submissionsPerHour}.`,
        {
          type: 'number',
          min: 1,
          step: 1,
          inputMode: 'numeric',
          defaultValue: values.submissionsPerHour,
        },
      )}
      {field(
        'precision',
        'Precision',
        `Relative half-width of the speedup interval the judge aims for (0.01 is ±1%). Empty: the manifest's ${values.defaults.precision}.`,
        { type: 'text', inputMode: 'decimal', defaultValue: values.precision, autoComplete: 'off' },
      )}
      {field(
        'benchmarkSize',
        'Benchmark input size',
        `Bytes, or with a unit: 256MiB, 64MB, 1GiB. Empty: the manifest's ${values.defaults.benchmarkSize}.`,
        {
          type: 'text',
          defaultValue: values.benchmarkSize,
          autoComplete: 'off',
          spellCheck: false,
        },
      )}
    </>
  );
}

/** The write-only seed, and what becomes of the scores when the benchmark changes. */
function BenchmarkFields({
  field,
  values,
  described,
  error,
}: FieldHelpers & { field: Field; values: SettingsFormValues }) {
  return (
    <>
      {field(
        'benchmarkSeed',
        'Benchmark seed',
        `${values.seedSet ? 'A seed is set (it is never shown).' : 'Not set: runners use the seed from their environment.'} Type a new one (at least 8 characters) to replace it; leave empty to keep it.`,
        { type: 'password', autoComplete: 'new-password', spellCheck: false },
      )}
      {values.seedSet && (
        <label
          className="row"
          style={{ fontWeight: 400, flexWrap: 'nowrap', alignItems: 'flex-start' }}
        >
          <input type="checkbox" name="clearSeed" /> Remove the seed (runners use their
          environment&apos;s)
        </label>
      )}
      <label>
        If the benchmark size or seed changes
        <span className="hint">
          Every score on the leaderboard was timed on the current definition ({values.definition}).
          Say what becomes of them; the change is recorded in the audit log.
        </span>
        <select name="benchmarkScores" defaultValue="" {...described('benchmarkScores')}>
          <option value="">— choose when changing the size or seed —</option>
          <option value="rejudge">Rejudge every submission on the new definition</option>
          <option value="new-board">
            Start a new leaderboard (earlier submissions keep their results, unranked)
          </option>
        </select>
        {error('benchmarkScores')}
      </label>
    </>
  );
}

/**
 * Judging every target after a failure; newer submissions superseding queued ones; cachegrind in
 * the profile.
 */
function JudgingChoices({ values }: { values: SettingsFormValues }) {
  return (
    <>
      <label
        className="row"
        style={{ fontWeight: 400, flexWrap: 'nowrap', alignItems: 'flex-start' }}
      >
        <input type="checkbox" name="judgeAllTargets" defaultChecked={values.judgeAllTargets} />{' '}
        Judge every target even after a submission failed on one (by default its other targets are
        not judged: it can no longer be accepted)
      </label>
      <label
        className="row"
        style={{ fontWeight: 400, flexWrap: 'nowrap', alignItems: 'flex-start' }}
      >
        <input type="checkbox" name="supersedeQueued" defaultChecked={values.supersedeQueued} /> A
        contestant&apos;s newer submission supersedes their own older one still waiting in the queue
        (settled as superseded, its patch kept; by default every submission is judged)
      </label>
      <label
        className="row"
        style={{ fontWeight: 400, flexWrap: 'nowrap', alignItems: 'flex-start' }}
      >
        <input type="checkbox" name="cachegrind" defaultChecked={values.cachegrind} /> Count
        instructions with cachegrind in each accepted judging&apos;s profile (per-function tables;
        an extra build and a slow run of both sides on the judge host: without it, results say it
        was not run)
      </label>
    </>
  );
}

'use client';
// The sign-up and sign-in forms: checked with zod as the user types submit, then sent to Better
// Auth; its refusals (wrong password, address taken, too many attempts) are shown in words. An
// account with two-factor sign-in asks for a code next; an owner whose account saw several wrong
// passwords since their last sign-in is told so before going on.
import Link from 'next/link';
import { useRouter, useSearchParams } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { SignInReport } from './sign-in-report';
import { TwoFactorStep } from './two-factor-step';
import { authClient } from '../../lib/server/auth/auth-client';
import type { FailedSignInReport } from '../../lib/server/db/accounts/record-sign-in';
import {
  fieldErrors,
  safeNextPath,
  signInSchema,
  signUpSchema,
} from '../../lib/server/web/account-forms';

function authErrorMessage(error: { status?: number; message?: string; code?: string }): string {
  if (error.status === 429)
    return error.message || 'Too many attempts. Wait a minute and try again.';
  if (error.code === 'INVALID_EMAIL_OR_PASSWORD') return 'Wrong e-mail or password.';
  if (
    error.code === 'USER_ALREADY_EXISTS' ||
    error.code === 'USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL'
  )
    return 'An account with this e-mail already exists. Sign in instead.';
  return error.message || 'That did not work. Try again.';
}

export function AccountForm({ mode }: { mode: 'sign-in' | 'sign-up' }) {
  const router = useRouter();
  const next = safeNextPath(useSearchParams().get('next'));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [step, setStep] = useState<'password' | 'code'>('password');
  const [report, setReport] = useState<FailedSignInReport | null>(null);

  function goOn() {
    router.push(next);
    router.refresh();
  }

  function signedIn(failures: FailedSignInReport | null) {
    if (failures) setReport(failures);
    else goOn();
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const fields = Object.fromEntries(new FormData(event.currentTarget));
    const parsed = (mode === 'sign-up' ? signUpSchema : signInSchema).safeParse(fields);
    if (!parsed.success) {
      setErrors(fieldErrors(parsed.error));
      return;
    }
    setErrors({});
    setFormError(null);
    setBusy(true);
    const { data, error } =
      mode === 'sign-up'
        ? await authClient.signUp.email(
            parsed.data as { name: string; email: string; password: string },
          )
        : await authClient.signIn.email(parsed.data);
    setBusy(false);
    if (error) {
      setFormError(authErrorMessage(error));
      return;
    }
    const answer = data as { twoFactorRedirect?: boolean; signInReport?: FailedSignInReport };
    if (answer?.twoFactorRedirect) setStep('code');
    else signedIn(answer?.signInReport ?? null);
  }

  if (report) return <SignInReport report={report} onContinue={goOn} />;
  if (step === 'code') return <TwoFactorStep onDone={signedIn} />;
  return (
    <form className="stack card" onSubmit={onSubmit} noValidate>
      {formError && (
        <div className="notice error" role="alert">
          {formError}
        </div>
      )}
      {mode === 'sign-up' && (
        <Field
          name="name"
          label="Name"
          type="text"
          hint="Shown on the public leaderboard."
          autoComplete="nickname"
          error={errors.name}
        />
      )}
      <Field name="email" label="E-mail" type="email" autoComplete="email" error={errors.email} />
      <Field
        name="password"
        label="Password"
        type="password"
        hint={mode === 'sign-up' ? 'At least 10 characters.' : undefined}
        autoComplete={mode === 'sign-up' ? 'new-password' : 'current-password'}
        error={errors.password}
      />
      <div className="row">
        <button type="submit" disabled={busy}>
          {busy ? 'Please wait…' : mode === 'sign-up' ? 'Create account' : 'Sign in'}
        </button>
        <OtherForm mode={mode} next={next} />
      </div>
    </form>
  );
}

/** A labelled input with its hint and, once checked, its error. */
function Field({
  name,
  label,
  type,
  hint,
  autoComplete,
  error,
}: {
  name: string;
  label: string;
  type: string;
  hint?: string;
  autoComplete?: string;
  error: string | undefined;
}) {
  return (
    <label>
      {label}
      {hint && <span className="hint">{hint}</span>}
      <input
        name={name}
        type={type}
        autoComplete={autoComplete}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${name}-error` : undefined}
        required
      />
      {error && (
        <span id={`${name}-error`} className="field-error">
          {error}
        </span>
      )}
    </label>
  );
}

/** The way to the other form (sign in, or create an account), keeping where to go next. */
function OtherForm({ mode, next }: { mode: 'sign-in' | 'sign-up'; next: string }) {
  return mode === 'sign-up' ? (
    <span className="muted">
      Have an account? <Link href={`/sign-in?next=${encodeURIComponent(next)}`}>Sign in</Link>
    </span>
  ) : (
    <span className="muted">
      New here? <Link href={`/sign-up?next=${encodeURIComponent(next)}`}>Create an account</Link>
    </span>
  );
}

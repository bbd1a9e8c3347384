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

  const field = (
    name: string,
    label: string,
    type: string,
    hint?: string,
    autoComplete?: string,
  ) => (
    <label>
      {label}
      {hint && <span className="hint">{hint}</span>}
      <input
        name={name}
        type={type}
        autoComplete={autoComplete}
        aria-invalid={errors[name] ? true : undefined}
        aria-describedby={errors[name] ? `${name}-error` : undefined}
        required
      />
      {errors[name] && (
        <span id={`${name}-error`} className="field-error">
          {errors[name]}
        </span>
      )}
    </label>
  );

  if (report) return <SignInReport report={report} onContinue={goOn} />;
  if (step === 'code') return <TwoFactorStep onDone={signedIn} />;
  return (
    <form className="stack card" onSubmit={onSubmit} noValidate>
      {formError && (
        <div className="notice error" role="alert">
          {formError}
        </div>
      )}
      {mode === 'sign-up' &&
        field('name', 'Name', 'text', 'Shown on the public leaderboard.', 'nickname')}
      {field('email', 'E-mail', 'email', undefined, 'email')}
      {field(
        'password',
        'Password',
        'password',
        mode === 'sign-up' ? 'At least 10 characters.' : undefined,
        mode === 'sign-up' ? 'new-password' : 'current-password',
      )}
      <div className="row">
        <button type="submit" disabled={busy}>
          {busy ? 'Please wait…' : mode === 'sign-up' ? 'Create account' : 'Sign in'}
        </button>
        {mode === 'sign-up' ? (
          <span className="muted">
            Have an account? <Link href={`/sign-in?next=${encodeURIComponent(next)}`}>Sign in</Link>
          </span>
        ) : (
          <span className="muted">
            New here?{' '}
            <Link href={`/sign-up?next=${encodeURIComponent(next)}`}>Create an account</Link>
          </span>
        )}
      </div>
    </form>
  );
}

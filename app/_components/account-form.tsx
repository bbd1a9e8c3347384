'use client';
// The sign-up and sign-in forms: checked with zod as the user types submit, then sent to Better
// Auth; its refusals (wrong password, address taken, too many attempts) are shown in words.
import Link from 'next/link';
import { useRouter, useSearchParams } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { authClient } from '../../lib/auth/auth-client';
import { fieldErrors, safeNextPath, signInSchema, signUpSchema } from '../../lib/web/account-forms';

function authErrorMessage(error: { status?: number; message?: string; code?: string }): string {
  if (error.status === 429) return 'Too many attempts. Wait a minute and try again.';
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

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = Object.fromEntries(new FormData(event.currentTarget));
    const parsed = (mode === 'sign-up' ? signUpSchema : signInSchema).safeParse(data);
    if (!parsed.success) {
      setErrors(fieldErrors(parsed.error));
      return;
    }
    setErrors({});
    setFormError(null);
    setBusy(true);
    const { error } =
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
    router.push(next);
    router.refresh();
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

'use client';
// The account's sign-in security: two-factor sign-in with an authenticator app (turn on: password,
// then the secret and backup codes, then a first code; turn off: password) and a new password
// (which signs out every other browser and revokes their device cookies).
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { z } from 'zod';
import { authClient } from '../../lib/server/auth/auth-client';
import { PASSWORD_MAX, PASSWORD_MIN } from '../../lib/core/access/password-limits';

const passwordSchema = z.string().min(1, 'Enter your password').max(PASSWORD_MAX);
const newPasswordSchema = z
  .string()
  .min(PASSWORD_MIN, `At least ${PASSWORD_MIN} characters`)
  .max(PASSWORD_MAX, `At most ${PASSWORD_MAX} characters`);
const codeSchema = z
  .string()
  .trim()
  .regex(/^\d{6}$/, 'Enter the 6 digits your authenticator app shows');

function field(form: HTMLFormElement, name: string): FormDataEntryValue | null {
  return new FormData(form).get(name);
}

function Notice({ error }: { error: string | null }) {
  return error ? (
    <div className="notice error" role="alert">
      {error}
    </div>
  ) : null;
}

interface Setup {
  secret: string;
  uri: string;
  backupCodes: string[];
}

function secretOf(uri: string): string {
  try {
    return new URL(uri).searchParams.get('secret') ?? '';
  } catch {
    return '';
  }
}

/** Turn on: password → secret and backup codes → the first code confirms it. */
function EnableTwoFactor() {
  const router = useRouter();
  const [setup, setSetup] = useState<Setup | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function start(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const password = passwordSchema.safeParse(field(event.currentTarget, 'password'));
    if (!password.success) return setError(password.error.issues[0]!.message);
    setBusy(true);
    const { data, error } = await authClient.twoFactor.enable({ password: password.data });
    setBusy(false);
    if (error || !data || !('totpURI' in data) || !data.totpURI)
      return setError(error?.status === 400 ? 'Wrong password.' : 'That did not work. Try again.');
    setError(null);
    setSetup({
      secret: secretOf(data.totpURI),
      uri: data.totpURI,
      backupCodes: data.backupCodes ?? [],
    });
  }

  async function confirm(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const code = codeSchema.safeParse(field(event.currentTarget, 'code'));
    if (!code.success) return setError(code.error.issues[0]!.message);
    setBusy(true);
    const { error } = await authClient.twoFactor.verifyTotp({ code: code.data });
    setBusy(false);
    if (error) return setError('That code is not right: type the one your app shows now.');
    router.refresh();
  }

  if (!setup)
    return (
      <form className="stack" onSubmit={start} noValidate>
        <Notice error={error} />
        <label>
          Your password
          <input name="password" type="password" autoComplete="current-password" required />
        </label>
        <div>
          <button type="submit" disabled={busy}>
            {busy ? 'Please wait…' : 'Turn on two-factor sign-in'}
          </button>
        </div>
      </form>
    );
  return (
    <form className="stack" onSubmit={confirm} noValidate data-testid="two-factor-setup">
      <Notice error={error} />
      <p>
        Add this key to your authenticator app (time-based, 6 digits, 30 seconds):{' '}
        <code style={{ wordBreak: 'break-all' }} data-testid="totp-secret">
          {setup.secret}
        </code>
      </p>
      <p className="muted small">
        Or open this link on the phone: <code style={{ wordBreak: 'break-all' }}>{setup.uri}</code>
      </p>
      <p>
        <strong>Backup codes</strong> — each signs in once without the app. Keep them somewhere
        safe; they are not shown again:
      </p>
      <ul className="mono" data-testid="backup-codes">
        {setup.backupCodes.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ul>
      <label>
        The code your app shows now
        <input name="code" inputMode="numeric" autoComplete="one-time-code" maxLength={6} />
      </label>
      <div>
        <button type="submit" disabled={busy}>
          {busy ? 'Please wait…' : 'Confirm'}
        </button>
      </div>
    </form>
  );
}

function DisableTwoFactor({ organizerRequired }: { organizerRequired: boolean }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const password = passwordSchema.safeParse(field(event.currentTarget, 'password'));
    if (!password.success) return setError(password.error.issues[0]!.message);
    setBusy(true);
    const { error } = await authClient.twoFactor.disable({ password: password.data });
    setBusy(false);
    if (error) return setError(error.status === 400 ? 'Wrong password.' : 'That did not work.');
    router.refresh();
  }

  return (
    <form className="stack" onSubmit={onSubmit} noValidate>
      <Notice error={error} />
      {organizerRequired && (
        <p className="muted">Without it you cannot use the organizer console on this platform.</p>
      )}
      <label>
        Your password
        <input name="password" type="password" autoComplete="current-password" required />
      </label>
      <div>
        <button type="submit" className="secondary" disabled={busy}>
          {busy ? 'Please wait…' : 'Turn off two-factor sign-in'}
        </button>
      </div>
    </form>
  );
}

export function TwoFactorSettings({
  enabled,
  organizerRequired,
}: {
  enabled: boolean;
  organizerRequired: boolean;
}) {
  return enabled ? <DisableTwoFactor organizerRequired={organizerRequired} /> : <EnableTwoFactor />;
}

export function ChangePasswordForm() {
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const current = passwordSchema.safeParse(field(form, 'currentPassword'));
    const next = newPasswordSchema.safeParse(field(form, 'newPassword'));
    if (!current.success) return setError(`Current password: ${current.error.issues[0]!.message}`);
    if (!next.success) return setError(`New password: ${next.error.issues[0]!.message}`);
    setBusy(true);
    const { error } = await authClient.changePassword({
      currentPassword: current.data,
      newPassword: next.data,
      revokeOtherSessions: true,
    });
    setBusy(false);
    if (error) {
      setDone(false);
      return setError(
        error.status === 400 ? 'The current password is wrong.' : 'That did not work.',
      );
    }
    setError(null);
    setDone(true);
    form.reset();
  }

  return (
    <form className="stack" onSubmit={onSubmit} noValidate>
      <Notice error={error} />
      {done && (
        <div className="notice ok" role="status">
          Password changed. Every other browser was signed out and must sign in again.
        </div>
      )}
      <label>
        Current password
        <input name="currentPassword" type="password" autoComplete="current-password" required />
      </label>
      <label>
        New password
        <span className="hint">At least {PASSWORD_MIN} characters.</span>
        <input name="newPassword" type="password" autoComplete="new-password" required />
      </label>
      <div>
        <button type="submit" disabled={busy}>
          {busy ? 'Please wait…' : 'Change password'}
        </button>
      </div>
    </form>
  );
}

'use client';
// Sign-in's second step for an account with two-factor sign-in: the code from the authenticator
// app, or one of the backup codes given when it was turned on.
import { useState, type FormEvent } from 'react';
import { z } from 'zod';
import { authClient } from '../../lib/server/auth/auth-client';
import type { FailedSignInReport } from '../../lib/server/db/accounts/record-sign-in';

const totpSchema = z
  .string()
  .trim()
  .regex(/^\d{6}$/, 'Enter the 6 digits your authenticator app shows');
const backupSchema = z.string().trim().min(4, 'Enter one of your backup codes').max(64);

export function TwoFactorStep({ onDone }: { onDone: (report: FailedSignInReport | null) => void }) {
  const [backup, setBackup] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const raw = new FormData(event.currentTarget).get('code');
    const parsed = (backup ? backupSchema : totpSchema).safeParse(raw);
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? 'Enter a code');
      return;
    }
    setBusy(true);
    const { data, error } = backup
      ? await authClient.twoFactor.verifyBackupCode({ code: parsed.data })
      : await authClient.twoFactor.verifyTotp({ code: parsed.data });
    setBusy(false);
    if (error) {
      setError(
        error.status === 429
          ? 'Too many codes tried: wait a few seconds and try again.'
          : 'That code is not right (or it expired): try the current one. After 10 minutes, sign in again.',
      );
      return;
    }
    const report = (data as { signInReport?: FailedSignInReport } | null)?.signInReport ?? null;
    onDone(report);
  }

  return (
    <form className="stack card" onSubmit={onSubmit} noValidate data-testid="two-factor-step">
      {error && (
        <div className="notice error" role="alert">
          {error}
        </div>
      )}
      <label>
        {backup ? 'Backup code' : 'Code from your authenticator app'}
        <input
          name="code"
          autoComplete="one-time-code"
          inputMode={backup ? 'text' : 'numeric'}
          maxLength={backup ? 64 : 6}
          required
          autoFocus
        />
      </label>
      <div className="row">
        <button type="submit" disabled={busy}>
          {busy ? 'Please wait…' : 'Verify'}
        </button>
        <button type="button" className="secondary" onClick={() => setBackup(!backup)}>
          {backup ? 'Use the authenticator app' : 'Use a backup code'}
        </button>
      </div>
    </form>
  );
}

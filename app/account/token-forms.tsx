'use client';
// Create a token (shown once, with the command to use it) and revoke tokens.
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { CLI_PACKAGE_PATH, submitCommand, TOKEN_FILE } from '../../lib/server/kit/workflow';
import { createToken, revokeToken } from './actions';

export function CreateTokenForm({ server, challenges }: { server: string; challenges: string[] }) {
  const router = useRouter();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [token, setToken] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = Object.fromEntries(new FormData(event.currentTarget));
    setBusy(true);
    const result = await createToken(data);
    setBusy(false);
    if (!result.ok) {
      setErrors(result.fieldErrors ?? {});
      setError(result.error);
      return;
    }
    setErrors({});
    setError(null);
    setToken(result.data.token);
    router.refresh();
  }

  return (
    <>
      <form className="stack" onSubmit={onSubmit} noValidate>
        {error && (
          <div className="notice error" role="alert">
            {error}
          </div>
        )}
        <label>
          Token name
          <input name="name" maxLength={60} required defaultValue="command line" />
          {errors.name && <span className="field-error">{errors.name}</span>}
        </label>
        <label>
          Expires after (days)
          <span className="hint">0: never.</span>
          <input name="expiresInDays" type="number" min={0} max={365} defaultValue={90} />
          {errors.expiresInDays && <span className="field-error">{errors.expiresInDays}</span>}
        </label>
        <div>
          <button type="submit" disabled={busy}>
            {busy ? 'Creating…' : 'Create token'}
          </button>
        </div>
      </form>
      {token && (
        <div className="notice ok" role="status" style={{ marginTop: '1em' }}>
          <p>
            <strong>Your new token</strong> — copy it now, it is not shown again:
          </p>
          <pre className="wrap" data-testid="new-token">
            {token}
          </pre>
          <p className="small">
            Use it from the command line (install it with{' '}
            <code>npm install -g {`${server}${CLI_PACKAGE_PATH}`}</code>):
          </p>
          <pre className="wrap small">
            {[
              `echo '${token}' > ${TOKEN_FILE} && chmod 600 ${TOKEN_FILE}`,
              ...challenges.map((slug) => submitCommand(server, slug)),
            ].join('\n')}
          </pre>
        </div>
      )}
    </>
  );
}

export function RevokeTokenButton({ tokenId, name }: { tokenId: string; name: string }) {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      <button
        type="button"
        className="secondary small"
        aria-label={`Revoke ${name}`}
        disabled={busy}
        onClick={async () => {
          if (!window.confirm(`Revoke the token "${name}"? Scripts using it stop working.`)) return;
          setBusy(true);
          const result = await revokeToken({ tokenId });
          setBusy(false);
          if (!result.ok) setError(result.error);
          router.refresh();
        }}
      >
        Revoke
      </button>
      {error && <span className="field-error"> {error}</span>}
    </>
  );
}

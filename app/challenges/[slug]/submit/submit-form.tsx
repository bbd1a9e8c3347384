'use client';
// Upload a file or paste a diff; check it (the files it touches, or why it would be rejected);
// then confirm. Checked in the browser first (empty, too large), and again on the server.
import { useRouter } from 'next/navigation';
import { useState, type ChangeEvent } from 'react';
import { z } from 'zod';
import { firstIssue } from '../../../../contracts/zod-issues';
import { EMPTY_PATCH_MESSAGE } from '../../../../lib/core/intake/empty-patch';
import type { PreviewPatchResult } from '../../../../lib/server/submit/submit-patch';
import { formatBytes } from '../../../../lib/server/web/format';
import { PatchFilesTable } from '../../../_components/patch-files-table';
import { createSubmission, previewSubmission } from './actions';

type Busy = 'check' | 'submit' | null;

export function SubmitForm({ slug, patchBytes }: { slug: string; patchBytes: number }) {
  const router = useRouter();
  const [patch, setPatch] = useState('');
  const [fileName, setFileName] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [preview, setPreview] = useState<PreviewPatchResult | null>(null);
  const [busy, setBusy] = useState<Busy>(null);

  const patchSchema = z
    .string()
    .refine(
      (t) => t.trim().length > 0,
      // An empty file is most often `git diff` in a kit nobody edited yet.
      fileName ? `${fileName}: ${EMPTY_PATCH_MESSAGE}` : 'Paste a patch or choose a file first.',
    )
    .refine(
      (t) => new TextEncoder().encode(t).length <= patchBytes,
      `The patch is larger than the limit of ${formatBytes(patchBytes)}.`,
    );

  function changed(text: string) {
    setPatch(text);
    setPreview(null);
    setError(null);
  }

  async function onFile(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    if (!file) return;
    if (file.size > patchBytes) {
      setError(
        `${file.name} is ${formatBytes(file.size)}; the limit is ${formatBytes(patchBytes)}.`,
      );
      return;
    }
    setFileName(file.name);
    changed(await file.text());
  }

  async function check() {
    const parsed = patchSchema.safeParse(patch);
    if (!parsed.success) {
      setError(firstIssue(parsed.error, 'Invalid patch'));
      return;
    }
    setBusy('check');
    const result = await previewSubmission({ challenge: slug, patch });
    setBusy(null);
    if (!result.ok) setError(result.fieldErrors?.patch ?? result.error);
    else setPreview(result.data);
  }

  async function submit() {
    setBusy('submit');
    const result = await createSubmission({ challenge: slug, patch });
    if (!result.ok) {
      setBusy(null);
      setError(result.error);
      return;
    }
    router.push(`/submissions/${result.data.submissionId}`);
  }

  return (
    <div className="stack" style={{ display: 'grid', gap: '1em' }}>
      <PatchInput
        patch={patch}
        patchBytes={patchBytes}
        fileName={fileName}
        error={error}
        busy={busy}
        onFile={onFile}
        onText={changed}
        onCheck={check}
      />

      {error && (
        <div id="patch-error" className="notice error" role="alert" data-testid="submit-error">
          {error}
        </div>
      )}

      {preview && !preview.ok && <Rejection preview={preview} />}

      {preview?.ok && <PreviewCard preview={preview} busy={busy} onSubmit={submit} />}
    </div>
  );
}

/** The files the patch touches, and the button that submits it. */
function PreviewCard({
  preview,
  busy,
  onSubmit,
}: {
  preview: Extract<PreviewPatchResult, { ok: true }>;
  busy: Busy;
  onSubmit: () => void;
}) {
  return (
    <div className="card" data-testid="preview">
      <h2 style={{ marginTop: 0 }}>Files this patch touches</h2>
      <PatchFilesTable files={preview.files} />
      <p className="small muted">
        Whether it applies and builds is decided on the judge; you follow it live on the next page.
      </p>
      <button type="button" onClick={onSubmit} disabled={busy !== null}>
        {busy === 'submit' ? 'Submitting…' : 'Confirm and submit'}
      </button>
    </div>
  );
}

/** The patch from a file or pasted, its size, and the check button. */
function PatchInput(props: {
  patch: string;
  patchBytes: number;
  fileName: string | null;
  error: string | null;
  busy: Busy;
  onFile: (event: ChangeEvent<HTMLInputElement>) => void;
  onText: (text: string) => void;
  onCheck: () => void;
}) {
  return (
    <div className="card">
      <label>
        Patch file
        <span className="hint">
          The output of <code>git diff</code> or <code>git format-patch --stdout</code>, at most{' '}
          {formatBytes(props.patchBytes)}.
        </span>
        <input type="file" accept=".patch,.diff,.txt,text/plain" onChange={props.onFile} />
      </label>
      {props.fileName && <p className="small muted">Loaded {props.fileName}.</p>}
      <label style={{ marginTop: '1em' }}>
        Or paste it
        <textarea
          name="patch"
          value={props.patch}
          onChange={(e) => props.onText(e.target.value)}
          spellCheck={false}
          placeholder="diff --git a/wordcount.cpp b/wordcount.cpp"
          aria-describedby={props.error ? 'patch-error' : undefined}
        />
      </label>
      <div className="row" style={{ marginTop: '0.8em' }}>
        <button type="button" onClick={props.onCheck} disabled={props.busy !== null}>
          {props.busy === 'check' ? 'Checking…' : 'Check patch'}
        </button>
        <span className="muted small">
          {formatBytes(new TextEncoder().encode(props.patch).length)}
        </span>
      </div>
    </div>
  );
}

/** Why the judge would reject the patch, and in which file. */
function Rejection({ preview }: { preview: Extract<PreviewPatchResult, { ok: false }> }) {
  return (
    <div className="notice error" role="alert" data-testid="rejection">
      <strong>This patch would be rejected</strong> ({preview.reason}): {preview.message}
      {preview.file && (
        <>
          {' '}
          File: <code>{preview.file}</code>
        </>
      )}
    </div>
  );
}

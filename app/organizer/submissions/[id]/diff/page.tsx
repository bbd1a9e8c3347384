// Any submission's patch as a diff for the organizers: files touched, each line classed and
// numbered (React text, never HTML), a huge patch cut with links to all of it; rejudge and
// disqualify from here too.
import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { db } from '../../../../../lib/server/db/client';
import { getOrganizerSubmission } from '../../../../../lib/server/db/submissions/get-organizer-submission';
import { formatBytes, formatCount } from '../../../../../lib/server/web/format';
import { parseUnifiedDiff, type ParsedDiff } from '../../../../../lib/server/web/organizer-diff';
import { idSchema } from '../../../../../lib/server/web/organizer-settings-form';
import { requireOrganizer } from '../../../../../lib/server/web/session';
import { ConsoleNav } from '../../../_components/console-nav';
import { SubmissionActions } from '../../../_components/submission-actions';
import { SubmissionFacts } from '../../../_components/submission-facts';
import { PatchFilesTable } from '../../../../_components/patch-files-table';

export const metadata: Metadata = { title: 'Patch · organizer' };

/** Above this the whole patch is shown as one plain text block (no per-line elements). */
const FULL_TEXT_MAX_BYTES = 8 * 1024 * 1024;

export default async function OrganizerDiffPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ full?: string | string[] }>;
}) {
  const { id } = await params;
  await requireOrganizer(`/organizer/submissions/${encodeURIComponent(id)}/diff`);
  if (!idSchema.safeParse(id).success) notFound();
  const submission = await getOrganizerSubmission(db(), id);
  if (!submission) notFound();
  const full = (await searchParams).full === '1';
  const diff = parseUnifiedDiff(submission.patchText);

  return (
    <>
      <h1>
        Patch of <span className="mono">{submission.id}</span>
      </h1>
      <ConsoleNav current={null} />
      <div className="grid">
        <section className="card" aria-label="Submission">
          <SubmissionFacts submission={submission} showReason>
            <dt>Patch</dt>
            <dd>
              {formatBytes(submission.patchBytes)}, {formatCount(diff.totalLines)} lines ·{' '}
              <Link href={`/submissions/${submission.id}`}>submission page</Link> ·{' '}
              <Link href={`/organizer/submissions/${submission.id}`}>rejudge N times</Link> ·{' '}
              <a href={`/submissions/${submission.id}/patch`}>raw patch</a>
            </dd>
          </SubmissionFacts>
        </section>
        <section className="card" aria-label="Actions">
          <div className="stack" style={{ display: 'grid', gap: '0.8em' }}>
            <SubmissionActions
              submissionId={submission.id}
              disqualified={submission.disqualified}
            />
          </div>
        </section>
      </div>

      <h2>Files touched</h2>
      {diff.files.length === 0 ? (
        <p className="card empty">No file headers found: this is not a unified diff.</p>
      ) : (
        <PatchFilesTable review files={diff.files} />
      )}

      <h2>Diff</h2>
      {diff.truncated && !full && (
        <div className="notice warn">
          Showing the first {formatCount(diff.lines.length)} of {formatCount(diff.totalLines)}{' '}
          lines. <a href={`/submissions/${submission.id}/patch`}>Download the raw patch</a>
          {submission.patchBytes <= FULL_TEXT_MAX_BYTES && (
            <>
              {' '}
              or{' '}
              <Link href={`/organizer/submissions/${submission.id}/diff?full=1`}>
                show it all as plain text
              </Link>
            </>
          )}
          .
        </div>
      )}
      {full && submission.patchBytes <= FULL_TEXT_MAX_BYTES ? (
        <pre className="diff-plain" data-testid="organizer-diff-plain">
          {submission.patchText}
        </pre>
      ) : (
        <DiffLines lines={diff.lines} />
      )}
    </>
  );
}

/** The diff line by line, with old and new line numbers. */
function DiffLines({ lines }: { lines: ParsedDiff['lines'] }) {
  return (
    <div className="diff diff-view card" data-testid="organizer-diff">
      <table>
        <tbody>
          {lines.map((line, i) => (
            <tr key={i} className={line.kind}>
              <td
                className="ln"
                aria-label={line.oldLine !== null ? `old line ${line.oldLine}` : undefined}
              >
                {line.oldLine ?? ''}
              </td>
              <td
                className="ln"
                aria-label={line.newLine !== null ? `new line ${line.newLine}` : undefined}
              >
                {line.newLine ?? ''}
              </td>
              <td className="code">{line.text === '' ? ' ' : line.text}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

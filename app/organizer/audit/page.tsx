// The audit log: who did what, to what, when and why, newest first.
import type { Metadata } from 'next';
import Link from 'next/link';
import { db } from '../../../lib/server/db/client';
import { listAuditLog } from '../../../lib/server/db/audit/list-audit-log';
import { formatDate } from '../../../lib/server/web/format';
import { requireOrganizer } from '../../../lib/server/web/session';
import { ConsoleNav } from '../_components/console-nav';
import { Pager } from '../_components/pager';

export const metadata: Metadata = { title: 'Audit log · organizer' };

function subjectHref(type: string | null, id: string | null): string | null {
  if (!id) return null;
  if (type === 'submission') return `/organizer/submissions/${id}/diff`;
  if (type === 'challenge') return `/organizer/challenges/${id}/settings`;
  return null;
}

export default async function AuditLogPage({
  searchParams,
}: {
  searchParams: Promise<{ cursor?: string | string[] }>;
}) {
  await requireOrganizer('/organizer/audit');
  const raw = (await searchParams).cursor;
  const cursor = typeof raw === 'string' && raw.length <= 200 ? raw : undefined;
  const page = await listAuditLog(db(), { cursor });
  return (
    <>
      <h1>Audit log</h1>
      <ConsoleNav current="/organizer/audit" />
      {page.rows.length === 0 ? (
        <p className="card empty">Nothing recorded yet.</p>
      ) : (
        <div className="table-wrap">
          <table data-testid="organizer-audit">
            <thead>
              <tr>
                <th>When</th>
                <th>Who</th>
                <th>Action</th>
                <th>Subject</th>
                <th>Reason</th>
                <th>Details</th>
              </tr>
            </thead>
            <tbody>
              {page.rows.map((r) => (
                <AuditRow key={r.id} r={r} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager
        first={cursor ? { href: '/organizer/audit', label: '← Newest' } : null}
        next={
          page.nextCursor
            ? {
                href: `/organizer/audit?cursor=${encodeURIComponent(page.nextCursor)}`,
                label: 'Older →',
              }
            : null
        }
      />
    </>
  );
}

type AuditEntry = Awaited<ReturnType<typeof listAuditLog>>['rows'][number];

/** One entry: when, who, what, on which subject (linked), why, and its details. */
function AuditRow({ r }: { r: AuditEntry }) {
  const href = subjectHref(r.subjectType, r.subjectId);
  return (
    <tr>
      <td className="nowrap">{formatDate(r.at)}</td>
      <td>
        {r.actor ? (
          <>
            <span className="ellipsis" title={r.actor.email}>
              {r.actor.name}
            </span>
          </>
        ) : (
          <span className="muted">platform</span>
        )}
      </td>
      <td className="mono small nowrap">{r.action}</td>
      <td className="small">
        {r.subjectType && <span className="muted">{r.subjectType} </span>}
        {href ? (
          <Link href={href} className="mono">
            {r.subjectId}
          </Link>
        ) : (
          <span className="mono">{r.subjectId ?? '–'}</span>
        )}
      </td>
      <td style={{ overflowWrap: 'anywhere', minWidth: '12em' }}>
        {r.reason ?? <span className="muted">–</span>}
      </td>
      <td className="mono small" style={{ overflowWrap: 'anywhere', maxWidth: '28em' }}>
        {r.details ?? ''}
      </td>
    </tr>
  );
}

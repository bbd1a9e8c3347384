// Every submission for the organizers: filters in the URL (validated field by field), keyset pages,
// and per row the links (submission, diff) and the actions (rejudge, disqualify or reinstate).
import type { Metadata } from 'next';
import Link from 'next/link';
import { TARGET_IDS } from '../../../contracts';
import { db } from '../../../lib/server/db/client';
import { listSubmissionsForOrganizer } from '../../../lib/server/db/submissions/list-submissions-for-organizer';
import {
  formatBytes,
  formatDate,
  formatScore,
  formatSpeedup,
} from '../../../lib/server/web/format';
import {
  organizerSubmissionsHref,
  parseOrganizerFilters,
  SUBMISSION_STATUSES,
  VERDICT_FILTERS,
  type SearchParams,
} from '../../../lib/server/web/organizer-filters';
import { requireOrganizer } from '../../../lib/server/web/session';
import { VerdictBadge, verdictLabel } from '../../_components/verdict-badge';
import { ConsoleNav } from '../_components/console-nav';
import { PlausibilityMark } from '../_components/plausibility-line';
import { Pager } from '../_components/pager';
import { SubmissionActions } from '../_components/submission-actions';

export const metadata: Metadata = { title: 'Submissions · organizer' };

type OrganizerRow = Awaited<ReturnType<typeof listSubmissionsForOrganizer>>['rows'][number];
type FilterValues = ReturnType<typeof parseOrganizerFilters>['values'];

/** A filter's drop-down: "any" first, then the options (shown through `text`). */
function FilterSelect<T extends string>({
  label,
  name,
  value,
  options,
  text = (o) => o,
}: {
  label: string;
  name: string;
  value: string | undefined;
  options: readonly T[];
  text?: (option: T) => string;
}) {
  return (
    <label>
      {label}
      <select name={name} defaultValue={value ?? ''}>
        <option value="">any</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {text(o)}
          </option>
        ))}
      </select>
    </label>
  );
}

export default async function OrganizerSubmissionsPage({
  searchParams,
}: {
  searchParams: Promise<SearchParams>;
}) {
  const { filters, cursor, values, errors } = parseOrganizerFilters(await searchParams);
  await requireOrganizer(organizerSubmissionsHref(values, cursor));
  const page = await listSubmissionsForOrganizer(db(), { filters, cursor });
  const filtered = Object.keys(filters).length > 0;

  return (
    <>
      <h1>Submissions</h1>
      <ConsoleNav current="/organizer/submissions" />

      <FiltersForm values={values} filtered={filtered} />

      {errors.length > 0 && (
        <div className="notice warn" role="alert">
          Ignored: {errors.join('; ')}.
        </div>
      )}

      {page.rows.length === 0 ? (
        <p className="card empty" data-testid="organizer-submissions">
          {filtered || cursor ? 'No submission matches these filters.' : 'No submissions yet.'}
        </p>
      ) : (
        <SubmissionsTable rows={page.rows} />
      )}

      <Pager
        first={cursor ? { href: organizerSubmissionsHref(values), label: '← First page' } : null}
        next={
          page.nextCursor
            ? { href: organizerSubmissionsHref(values, page.nextCursor), label: 'Next page →' }
            : null
        }
      />
    </>
  );
}

/** One submission: when, who, verdicts per target, score, size, links and actions. */
function SubmissionRow({ s }: { s: OrganizerRow }) {
  return (
    <tr data-submission-id={s.id}>
      <td>
        <Link href={`/submissions/${s.id}`} className="nowrap">
          {formatDate(s.createdAt)}
        </Link>
        <div className="muted small mono">
          {s.challengeSlug} · {s.id}
        </div>
      </td>
      <td>
        <span className="ellipsis" title={s.contestant.name}>
          {s.contestant.name}
        </span>
        <div className="muted small">
          <span className="ellipsis" title={s.contestant.email}>
            {s.contestant.email}
          </span>
        </div>
      </td>
      <td>
        <VerdictBadge verdict={s.verdict} status={s.status} disqualified={s.disqualified} />{' '}
        <PlausibilityMark flaggedTargets={s.plausibilityFlagged} />
      </td>
      {TARGET_IDS.map((t) => {
        const j = s.judgings.find((x) => x.target === t);
        return (
          <td key={t} className="num">
            {!j ? (
              <span className="muted">–</span>
            ) : j.verdict === 'ACCEPTED' ? (
              formatSpeedup(j.speedup)
            ) : (
              <VerdictBadge verdict={j.verdict} status={j.status} />
            )}
          </td>
        );
      })}
      <td className="num">{formatScore(s.score)}</td>
      <td className="num">{formatBytes(s.patchBytes)}</td>
      <td>
        <div className="row row-actions">
          <Link href={`/organizer/submissions/${s.id}`}>Repeats</Link>
          <Link href={`/organizer/submissions/${s.id}/diff`}>Diff</Link>
          <SubmissionActions submissionId={s.id} disqualified={s.disqualified} compact />
        </div>
      </td>
    </tr>
  );
}

function SubmissionsTable({ rows }: { rows: OrganizerRow[] }) {
  return (
    <div className="table-wrap">
      <table data-testid="organizer-submissions">
        <thead>
          <tr>
            <th>Submitted</th>
            <th>Contestant</th>
            <th>Verdict</th>
            {TARGET_IDS.map((t) => (
              <th key={t} className="num">
                {t}
              </th>
            ))}
            <th className="num">Score</th>
            <th className="num">Patch</th>
            <th>Actions</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((s) => (
            <SubmissionRow key={s.id} s={s} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function FiltersForm({ values, filtered }: { values: FilterValues; filtered: boolean }) {
  return (
    <form
      method="get"
      action="/organizer/submissions"
      className="card filters"
      aria-label="Filters"
    >
      <div className="filter-grid">
        <label>
          Challenge
          <input name="challenge" defaultValue={values.challenge ?? ''} placeholder="any" />
        </label>
        <FilterSelect
          label="Verdict"
          name="verdict"
          value={values.verdict}
          options={VERDICT_FILTERS}
          text={(v) => (v === 'DISQUALIFIED' ? 'Disqualified' : verdictLabel(v))}
        />
        <FilterSelect label="Target" name="target" value={values.target} options={TARGET_IDS} />
        <FilterSelect
          label="Status"
          name="status"
          value={values.status}
          options={SUBMISSION_STATUSES}
          text={(s) => s.toLowerCase()}
        />
        <label>
          Contestant
          <input
            name="contestant"
            defaultValue={values.contestant ?? ''}
            placeholder="name or e-mail"
            maxLength={100}
          />
        </label>
        <label>
          From (UTC)
          <input name="from" type="date" defaultValue={values.from?.slice(0, 10) ?? ''} />
        </label>
        <label>
          To (UTC, inclusive)
          <input name="to" type="date" defaultValue={values.to?.slice(0, 10) ?? ''} />
        </label>
      </div>
      <div className="row" style={{ marginTop: '0.8em' }}>
        <button type="submit">Filter</button>
        {filtered && (
          <Link href="/organizer/submissions" className="btn secondary">
            Clear filters
          </Link>
        )}
        <span className="muted small">
          With a target, the verdict is that target&apos;s. Newest first.
        </span>
      </div>
    </form>
  );
}

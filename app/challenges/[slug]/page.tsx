// A challenge: its README for contestants, the rules and limits, the deadline, the targets, the
// downloads, and how to make and submit a patch from the web or the command line.
import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { isSlug } from '../../../contracts';
import { NotFoundError } from '../../../lib/server/db/errors';
import { env } from '../../../lib/core/config/env';
import { challengePageData, type ChallengePageData } from '../../../lib/server/web/challenge-page';
import { formatDate, formatScore } from '../../../lib/server/web/format';
import { Countdown } from '../../_components/countdown';
import { Markdown } from '../../_components/markdown';
import { FinalBanner } from './final-banner';
import { loadPublishedFinal } from './final/load-final';

export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ slug: string }> };

/** The workflow's text marks commands with backticks, as Markdown does. */
function withCode(text: string) {
  return text
    .split('`')
    .map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : <span key={i}>{part}</span>));
}

async function load(slug: string): Promise<ChallengePageData> {
  if (!isSlug(slug)) notFound();
  try {
    return await challengePageData(slug);
  } catch (error) {
    if (error instanceof NotFoundError) notFound();
    throw error;
  }
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { slug } = await params;
  return { title: (await load(slug)).title };
}

export default async function ChallengePage({ params }: Props) {
  const { slug } = await params;
  const c = await load(slug);
  const base = `/challenges/${c.slug}`;
  const server = env().PERFJUDGE_PUBLIC_URL;
  return (
    <>
      <div className="spread">
        <h1>{c.title}</h1>
        <div className="row">
          {/* A closed contest takes no patch: no button that leads to a refusal. */}
          {c.open && (
            <Link className="btn" href={`${base}/submit`}>
              Submit a patch
            </Link>
          )}
          {c.solutionsPublished && (
            <Link className="btn secondary" href={`${base}/solutions`}>
              Solutions
            </Link>
          )}
          <Link className="btn secondary" href={`${base}/leaderboard`}>
            Leaderboard
          </Link>
        </div>
      </div>
      <p>{c.summary}</p>
      <FinalResultLead slug={c.slug} />
      <FinalBanner slug={c.slug} where="challenge" />

      <div className="grid">
        <Deadline c={c} base={base} />

        <Downloads c={c} base={base} />
      </div>

      <TargetsAndLimits c={c} />

      <Workflow c={c} base={base} server={server} />

      <h2>The challenge</h2>
      <article className="card">
        <Markdown source={c.readme} />
      </article>
      <p className="muted small">Challenge version {c.version}.</p>
    </>
  );
}

/** How many places the challenge page shows of the final result (the rest is one click away). */
const LEAD_ROWS = 5;

/** Once the final result is published, the challenge page leads with it: the top places, linked. */
async function FinalResultLead({ slug }: { slug: string }) {
  const { table } = await loadPublishedFinal(slug);
  if (!table) return null;
  const top = table.rows.filter((r) => r.excludedReason === null).slice(0, LEAD_ROWS);
  return (
    <section className="card final-lead" aria-labelledby="final-lead-h" data-testid="final-lead">
      <h2 id="final-lead-h" style={{ marginTop: 0 }}>
        Final result
      </h2>
      <ol className="final-podium">
        {top.map((r) => (
          <li key={r.userId}>
            <b className="num">{r.placeLabel}</b> <span className="ellipsis">{r.userName}</span>{' '}
            <span className="muted small">score {formatScore(r.score)}</span>
          </li>
        ))}
      </ol>
      <p className="small" style={{ marginBottom: 0 }}>
        <Link href={`/challenges/${slug}/final`}>The final leaderboard</Link>: every finalist, the
        intervals, shared places and how they were decided. The{' '}
        <Link href={`/challenges/${slug}/leaderboard`}>provisional leaderboard</Link> stays for the
        record.
      </p>
    </section>
  );
}

/** The kit's steps, the web form, and the API with curl. */
function Workflow({ c, base, server }: { c: ChallengePageData; base: string; server: string }) {
  return (
    <>
      <h2 id="workflow">How to work</h2>
      <div className="card" data-testid="workflow">
        <p>
          The same steps as the kit&apos;s README. Or submit from the web:{' '}
          <Link href={`${base}/submit`}>upload or paste the patch</Link>, and see the files it
          touches before you confirm.
        </p>
        <ol className="breakable">
          {c.workflow.map((step) => (
            <li key={step.id} data-testid={`workflow-${step.id}`}>
              <strong>{step.title}.</strong> {withCode(step.text)}
              <pre className="wrap">{step.commands.join('\n')}</pre>
            </li>
          ))}
        </ol>
        <p className="small muted">
          Or with curl: <code>POST {server}/api/submissions</code> with{' '}
          <code>Authorization: Bearer &lt;token&gt;</code> and JSON{' '}
          <code>{'{"challenge":"' + c.slug + '","patch":"…"}'}</code>.
        </p>
      </div>
    </>
  );
}

function TargetsAndLimits({ c }: { c: ChallengePageData }) {
  return (
    <>
      <h2>Targets</h2>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th>Target</th>
              <th>Machine</th>
              <th>Compiler and flags</th>
            </tr>
          </thead>
          <tbody>
            {c.targets.map((t) => (
              <tr key={t.id}>
                <td className="mono">{t.id}</td>
                <td>
                  {t.description || `${t.os}, ${t.cpuVendor}`}
                  <div className="muted small">
                    {t.os} · {t.cpuVendor}
                  </div>
                </td>
                <td className="mono small">{t.flags}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      <h2>Limits</h2>
      <dl className="kv card">
        {c.limits.map((l) => (
          <div key={l.label} style={{ display: 'contents' }}>
            <dt>{l.label}</dt>
            <dd>{l.value}</dd>
          </div>
        ))}
      </dl>
    </>
  );
}

/** The kit, the command line and the public input. */
function Downloads({ c, base }: { c: ChallengePageData; base: string }) {
  return (
    <section className="card" aria-labelledby="downloads-h">
      <h2 id="downloads-h" style={{ marginTop: 0 }}>
        Downloads
      </h2>
      <ul>
        <li>
          <a href={`${base}/download/${c.downloads.tarGz}`} download>
            Contestant kit (.tar.gz)
          </a>{' '}
          ·{' '}
          <a href={`${base}/download/${c.downloads.zip}`} download>
            Contestant kit (.zip)
          </a>
          <div className="muted small">
            Template, the judge&apos;s harness, edge-case tests, the public input, and CMake scripts
            to build, check and time (no Node needed).
          </div>
        </li>
        <li>
          <a href={c.downloads.cli} download>
            perfjudge command line (.tgz)
          </a>{' '}
          <span className="muted small">
            judge locally exactly as the server does, and submit: <code>npm install -g</code> this
            link
          </span>
        </li>
        <li>
          <a href={`${base}/download/public-input.txt`} download>
            Public input
          </a>{' '}
          <span className="muted small">
            ({c.publicInput.size}, seed <code>{c.publicInput.seed}</code>; also in the kit)
          </span>
        </li>
      </ul>
    </section>
  );
}

/** The deadline and its countdown (or why it is closed), the quota and the score. */
function Deadline({ c, base }: { c: ChallengePageData; base: string }) {
  return (
    <section className="card" aria-labelledby="deadline-h">
      <h2 id="deadline-h" style={{ marginTop: 0 }}>
        Deadline
      </h2>
      {c.open ? (
        c.deadline ? (
          <p>
            <strong>{formatDate(c.deadline)}</strong>
            <br />
            <Countdown deadline={c.deadline} />
          </p>
        ) : (
          <p>No deadline set: submissions are open.</p>
        )
      ) : (
        <p className="notice warn">Closed. {c.closedReason}</p>
      )}
      <p className="small muted">
        Up to {c.submissionsPerHour} submissions an hour. Your best accepted submission is your row
        on the leaderboard. Score: {c.scoring}
        {c.solutionsPublished && (
          <>
            {' · '}Solutions are published:{' '}
            <Link href={`${base}/solutions`} data-testid="solutions-link">
              read every accepted submission
            </Link>
            .
          </>
        )}
      </p>
    </section>
  );
}

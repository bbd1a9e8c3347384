// A challenge: its README for contestants, the rules and limits, the deadline, the targets, the
// downloads, and how to make and submit a patch from the web or the command line.
import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { isSlug } from '../../../contracts';
import { NotFoundError } from '../../../lib/db/errors';
import { env } from '../../../lib/config/env';
import { challengePageData, type ChallengePageData } from '../../../lib/web/challenge-page';
import { formatDate } from '../../../lib/web/format';
import { Countdown } from '../../_components/countdown';
import { Markdown } from '../../_components/markdown';

export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ slug: string }> };

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

      <div className="grid">
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
            Up to {c.submissionsPerHour} submissions an hour. Your best accepted submission is your
            row on the leaderboard. Score: {c.scoring}
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

        <section className="card" aria-labelledby="downloads-h">
          <h2 id="downloads-h" style={{ marginTop: 0 }}>
            Downloads
          </h2>
          <ul>
            <li>
              <a href={`${base}/download/${c.downloads.tarGz}`} download>
                Template (.tar.gz)
              </a>{' '}
              ·{' '}
              <a href={`${base}/download/${c.downloads.zip}`} download>
                Template (.zip)
              </a>
            </li>
            <li>
              <a href={`${base}/download/public-input.txt`} download>
                Public input
              </a>{' '}
              <span className="muted small">
                ({c.publicInput.size}, seed <code>{c.publicInput.seed}</code>), or generate it:
              </span>
              <pre className="wrap small">{c.publicInput.command}</pre>
            </li>
          </ul>
        </section>
      </div>

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

      <h2>Make and submit a patch</h2>
      <div className="card">
        <p>Unpack the template, keep it in git, and diff your work against the pristine copy:</p>
        <pre className="wrap">{`tar xzf ${c.downloads.tarGz} && cd ${c.slug}
git init -q && git add -A && git commit -qm template
# … edit wordcount.cpp (the #ifdef SOLUTION branch), add files …
git add -A && git diff --cached > ../my.patch`}</pre>
        <p>
          <strong>From the web:</strong> <Link href={`${base}/submit`}>upload or paste it</Link>;
          you see the files it touches before you confirm.
        </p>
        <p>
          <strong>From the command line:</strong> create an API token on{' '}
          <Link href="/account">your account page</Link>, then:
        </p>
        <pre className="wrap">{`npx perfjudge submit --server ${server} --token-file ~/.perfjudge-token -c ${c.slug} my.patch`}</pre>
        <p className="small muted">
          Or with curl: <code>POST {server}/api/submissions</code> with{' '}
          <code>Authorization: Bearer &lt;token&gt;</code> and JSON{' '}
          <code>{'{"challenge":"' + c.slug + '","patch":"…"}'}</code>.
        </p>
      </div>

      <h2>The challenge</h2>
      <article className="card">
        <Markdown source={c.readme} />
      </article>
      <p className="muted small">Challenge version {c.version}.</p>
    </>
  );
}

// Home: what perfjudge is and the contests it runs.
import Link from 'next/link';
import { db } from '../lib/server/db/client';
import { listChallenges } from '../lib/server/db/contest/list-challenges';

export const dynamic = 'force-dynamic';

export default async function HomePage() {
  const challenges = await listChallenges(db());
  return (
    <>
      <h1>Performance-tuning contests, judged fairly</h1>
      <p>
        Make a slow but correct C++ program faster and submit a patch. perfjudge builds it in a
        sandbox on every target machine, checks its output exactly, times it against the unmodified
        baseline with alternating runs and a confidence interval, and ranks everyone by combined
        speedup.
      </p>
      <h2>Contests</h2>
      {challenges.length === 0 ? (
        <p className="empty card">
          No contest yet. Organizers register one with <code>npm run db:seed</code>.
        </p>
      ) : (
        <div className="grid">
          {challenges.map((c) => (
            <div className="card" key={c.slug}>
              <h3 style={{ marginTop: 0 }}>
                <Link href={`/challenges/${c.slug}`}>{c.title}</Link>
              </h3>
              <p>{c.summary}</p>
              <p className="muted small">
                {c.closed
                  ? 'Closed'
                  : c.deadline
                    ? `Deadline ${c.deadline.toISOString().slice(0, 16).replace('T', ' ')} UTC`
                    : 'No deadline set'}{' '}
                · {c.contestants} on the leaderboard ·{' '}
                <Link href={`/challenges/${c.slug}/leaderboard`}>leaderboard</Link>
              </p>
            </div>
          ))}
        </div>
      )}
    </>
  );
}

// The production server's cache of settled submission pages (lib/server/web/submission-page-cache.ts,
// lib/server/db/submissions/submission-page-version.ts) in front of a real HTTP upstream that renders what the page
// shows from the real PostgreSQL: every write the page shows (a rejudge, a disqualification, a new
// submission of the viewer's, a final choice, the solutions published, the author renamed, a final
// evaluation started) reaches the next request; a write the page does not show keeps the copy;
// each viewer has their own copy, a page still being judged is never kept, and a copy is rendered
// again after SUBMISSION_PAGE_MAX_AGE_S whatever its version (a clock the test moves, so nothing is
// timed). Viewers have real session rows; the upstream finds them as Better Auth would (checking
// the cookie's signature is Better Auth's, tested with the sign-in).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPgPool } from '../../lib/server/db/client';
import { createSubmission } from '../../lib/server/db/submissions/create-submission';
import { disqualifySubmission } from '../../lib/server/db/submissions/disqualify-submission';
import { publishSolutions } from '../../lib/server/db/contest/publish-solutions';
import { requestRejudge } from '../../lib/server/db/judgings/request-rejudge';
import { selectFinalSubmission } from '../../lib/server/db/final/select-final-submission';
import { submissionPageVersion } from '../../lib/server/db/submissions/submission-page-version';
import { cachingResponses } from '../../lib/server/web/response-cache';
import {
  SUBMISSION_PAGE_MAX_AGE_S,
  sessionTokenOf,
  submissionPageId,
  submissionPagePolicy,
} from '../../lib/server/web/submission-page-cache';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { cacheGet } from '../helpers/cache-get';
import { acceptedSubmission, makeUser, registerChallenge } from '../../dev/db-fixtures';

let t: TestDatabase;
let version: number;
let server: Server;
let base: string;
let clock = Date.UTC(2026, 11, 2, 12);
let renders = 0;
let pool: Pool;

const SESSION_COOKIE = 'better-auth.session_token';

/** A session of the user's, as signing in makes one; its cookie header. */
async function signIn(userId: string): Promise<string> {
  const token = randomBytes(16).toString('hex');
  await t.db.session.create({
    data: { userId, token, expiresAt: new Date(Date.now() + 86_400_000) },
  });
  return `${SESSION_COOKIE}=${token}.signature; other=1`;
}

/** The viewer of a request: the user of its live session, or null. */
async function viewerOf(cookie: string | undefined): Promise<string | null> {
  const token = sessionTokenOf(cookie, SESSION_COOKIE);
  if (!token) return null;
  const session = await t.db.session.findUnique({ where: { token } });
  return session && session.expiresAt > new Date() ? session.userId : null;
}

/** What the page shows, read fresh from the database: the rows the version is made of. */
async function upstream(req: IncomingMessage): Promise<string> {
  renders++;
  const id = submissionPageId(req.url ?? '')!;
  const viewer = await viewerOf(req.headers.cookie);
  const s = await t.db.submission.findUniqueOrThrow({
    where: { id },
    include: { judgings: true, user: true, challenge: { include: { finalEvaluations: true } } },
  });
  const mine = viewer
    ? await t.db.submission.count({ where: { userId: viewer, challengeId: s.challengeId } })
    : 0;
  const chosen = viewer
    ? await t.db.finalSelection.findFirst({
        where: { userId: viewer },
        select: { submissionId: true },
      })
    : null;
  return JSON.stringify({
    viewer,
    author: s.user.name,
    disqualified: s.disqualified,
    judgings: s.judgings.map((j) => j.status),
    published: s.challenge.solutionsPublishedAt !== null,
    finals: s.challenge.finalEvaluations.length,
    mine,
    chosen: chosen?.submissionId ?? null,
  });
}

async function get(path: string, cookie?: string) {
  const r = await cacheGet(`${base}${path}`, cookie ? { cookie } : {});
  return { ...r, body: r.raw.toString() };
}

/** The page as a visitor with these cookies sees it, and whether it came from a copy. */
async function page(id: string, cookie?: string) {
  const r = await get(`/submissions/${id}`, cookie);
  expect(r.status).toBe(200);
  return { cache: r.cache, shown: JSON.parse(r.body) as Record<string, unknown> };
}

beforeAll(async () => {
  t = await createTestDatabase();
  ({ version } = await registerChallenge(t.db));
  pool = createPgPool(t.url);
  const policy = submissionPagePolicy({
    sessionCookieName: SESSION_COOKIE,
    version: (options) => submissionPageVersion(pool, options),
  });
  server = createServer(
    cachingResponses(
      (req, res) => {
        upstream(req)
          .then((body) => res.writeHead(200, { 'content-type': 'application/json' }).end(body))
          .catch((error: unknown) => res.writeHead(500).end(String(error)));
      },
      [policy],
      { now: () => clock },
    ),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await pool?.end();
  await t?.drop();
});
beforeEach(() => {
  renders = 0;
});

describe('the submission page cache', () => {
  it('serves a copy until a row the page shows changes, and every such write reaches the next request', async () => {
    const author = await makeUser(t.db, 'ada');
    const organizer = await makeUser(t.db, 'organizer');
    const id = await acceptedSubmission(t.db, { userId: author, version, speedup: 2 });
    const ada = await signIn(author);

    expect((await page(id, ada)).cache).toBe('MISS');
    expect((await page(id, ada)).cache).toBe('HIT');
    expect(renders).toBe(1);

    // A write the page does not show (another contestant's submission) keeps the copy.
    await acceptedSubmission(t.db, { userId: await makeUser(t.db, 'bob'), version, speedup: 3 });
    expect((await page(id, ada)).cache).toBe('HIT');

    const writes: [string, () => Promise<unknown>, (shown: Record<string, unknown>) => void][] = [
      [
        'a final choice',
        () => selectFinalSubmission(t.db, { userId: author, submissionId: id }),
        (shown) => expect(shown.chosen).toBe(id),
      ],
      [
        'a new submission of the viewer’s',
        () => acceptedSubmission(t.db, { userId: author, version, speedup: 2.5 }),
        (shown) => expect(shown.mine).toBe(2),
      ],
      [
        'the solutions published',
        () =>
          publishSolutions(t.db, {
            actorId: organizer,
            slug: 'wordcount',
            published: true,
            reason: 'test',
          }),
        (shown) => expect(shown.published).toBe(true),
      ],
      [
        'the author renamed',
        () => t.db.user.update({ where: { id: author }, data: { name: 'Ada L.' } }),
        (shown) => expect(shown.author).toBe('Ada L.'),
      ],
      [
        'a final evaluation started',
        async () => {
          const challenge = await t.db.challenge.findUniqueOrThrow({
            where: { slug: 'wordcount' },
            select: { id: true, versions: { select: { id: true } } },
          });
          await t.db.finalEvaluation.create({
            data: {
              challengeId: challenge.id,
              challengeVersionId: challenge.versions[0]!.id,
              seed: 'cache-test',
              benchmarkBytes: 1 << 20,
              rounds: 3,
              errorRate: 0.05,
            },
          });
        },
        (shown) => expect(shown.finals).toBe(1),
      ],
      [
        'a disqualification',
        () => disqualifySubmission(t.db, { actorId: organizer, submissionId: id, reason: 'test' }),
        (shown) => expect(shown.disqualified).toBe(true),
      ],
    ];
    for (const [what, write, check] of writes) {
      await write();
      const after = await page(id, ada);
      expect(after.cache, what).toBe('MISS');
      check(after.shown);
      expect((await page(id, ada)).cache, `${what}, once more`).toBe('HIT');
    }
  });

  it('keeps one copy per viewer and session, follows signing out, and keeps none for a page still being judged', async () => {
    const author = await makeUser(t.db, 'cy');
    const other = await makeUser(t.db, 'dee');
    const id = await acceptedSubmission(t.db, { userId: author, version, speedup: 2 });
    const cy = await signIn(author);
    expect((await page(id, cy)).shown.viewer).toBe(author);
    const theirs = await page(id, await signIn(other));
    expect([theirs.cache, theirs.shown.viewer]).toEqual(['MISS', other]);
    const signedOut = await page(id);
    expect([signedOut.cache, signedOut.shown.viewer]).toEqual(['MISS', null]);
    expect((await page(id, cy)).cache).toBe('HIT');

    // Another session of the author's (another browser) has its own copy.
    expect((await page(id, await signIn(author))).cache).toBe('MISS');

    // Signed out (the session row is gone) or expired: the same cookies are another viewer now.
    const token = sessionTokenOf(cy, SESSION_COOKIE)!;
    await t.db.session.update({ where: { token }, data: { expiresAt: new Date(Date.now() - 1) } });
    const expired = await page(id, cy);
    expect([expired.cache, expired.shown.viewer]).toEqual(['MISS', null]);
    await t.db.session.update({
      where: { token },
      data: { expiresAt: new Date(Date.now() + 3_600_000) },
    });
    expect((await page(id, cy)).shown.viewer).toBe(author);
    await t.db.session.delete({ where: { token } });
    // (The copy of the expired session's view serves it: the same cookies, the same rows.)
    expect((await page(id, cy)).shown.viewer).toBeNull();
    const cyAgain = await signIn(author);

    // A rejudge starts the judgings again: live, so every request renders.
    const organizer = await makeUser(t.db, 'organizer2');
    await requestRejudge(t.db, { actorId: organizer, submissionId: id, reason: 'test' });
    const live1 = await page(id, cyAgain);
    const live2 = await page(id, cyAgain);
    expect([live1.cache, live2.cache]).toEqual([null, null]);
    expect(live2.shown.judgings).toEqual(['QUEUED', 'QUEUED']);

    // Queued, never judged: not settled either.
    const { submissionId: queued } = await createSubmission(t.db, {
      userId: author,
      challengeSlug: 'wordcount',
      patchText: 'patch cy queued',
    });
    expect((await page(queued, cyAgain)).cache).toBeNull();
    expect((await page(queued, cyAgain)).cache).toBeNull();
  });

  it('renders a copy again once it is SUBMISSION_PAGE_MAX_AGE_S old, and never serves one twice that', async () => {
    const author = await makeUser(t.db, 'eve');
    const id = await acceptedSubmission(t.db, { userId: author, version, speedup: 2 });
    const eve = await signIn(author);
    expect((await page(id, eve)).cache).toBe('MISS');
    clock += SUBMISSION_PAGE_MAX_AGE_S * 1000 - 1;
    expect((await page(id, eve)).cache).toBe('HIT');
    // Served once more while the new copy renders behind it…
    clock += 1;
    expect((await page(id, eve)).cache).toBe('STALE');
    // The upstream counts a render when the request arrives, before the copy is stored: wait for
    // the copy (a HIT), then check it took one render (a busy host lost that race once).
    await expect.poll(async () => (await page(id, eve)).cache).toBe('HIT');
    expect(renders).toBe(2);
    // …but a copy twice that old is never served: the request waits for a new one.
    clock += 2 * SUBMISSION_PAGE_MAX_AGE_S * 1000;
    expect((await page(id, eve)).cache).toBe('MISS');
    expect(renders).toBe(3);
  });

  it('leaves other paths, query strings and client navigations to Next', async () => {
    const author = await makeUser(t.db, 'fay');
    const id = await acceptedSubmission(t.db, { userId: author, version, speedup: 2 });
    const fay = await signIn(author);
    expect(submissionPageId(`/submissions/${id}/patch`)).toBeNull();
    expect(submissionPageId('/submissions/bad%20id')).toBeNull();
    const withQuery = await get(`/submissions/${id}?compare=best`, fay);
    expect(withQuery.cache).toBeNull();
    expect((await get(`/submissions/${id}?compare=best`, fay)).cache).toBeNull();
    expect(sessionTokenOf(`a=1; ${SESSION_COOKIE}=tok%2Fen.sig`, SESSION_COOKIE)).toBe('tok/en');
    expect(sessionTokenOf(`${SESSION_COOKIE}=nodot`, SESSION_COOKIE)).toBeNull();
    expect(sessionTokenOf(`${SESSION_COOKIE}=%E0%A4%A.x`, SESSION_COOKIE)).toBeNull();
  });
});

// The production server's leaderboard cache (lib/server/web/leaderboard-response-cache.ts) in front of a
// real HTTP upstream that renders the CSV export from the real PostgreSQL: a recorded score and a
// disqualification reach every visitor once the copy is LEADERBOARD_MAX_AGE_S old (a clock the test
// moves, so nothing is timed), one render serves everyone, and nothing of one visitor's (cookies,
// authorization, a response that sets a cookie, a client navigation) is kept for the others.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { disqualifySubmission } from '../../lib/server/db/submissions/disqualify-submission';
import { getLeaderboardTable } from '../../lib/server/db/leaderboard/get-leaderboard-table';
import { leaderboardCsv } from '../../lib/server/web/leaderboard-export';
import {
  LEADERBOARD_MAX_AGE_S,
  LEADERBOARD_REVALIDATE_S,
} from '../../lib/server/web/leaderboard-freshness';
import {
  cachingLeaderboards,
  isLeaderboardPath,
} from '../../lib/server/web/leaderboard-response-cache';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { cacheGet } from '../helpers/cache-get';
import { acceptedSubmission, makeUser, registerChallenge } from '../../dev/db-fixtures';

const BOARD = '/challenges/wordcount/leaderboard';
let t: TestDatabase;
let version: number;
let server: Server;
let base: string;
let clock = Date.UTC(2026, 11, 1, 12);
/** Requests that reached the upstream ("Next"), by path. */
const renders = new Map<string, number>();

async function upstream(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = req.url ?? '';
  renders.set(path, (renders.get(path) ?? 0) + 1);
  if (path === `${BOARD}/export.csv`) {
    const table = await getLeaderboardTable(t.db, { challengeSlug: 'wordcount' });
    res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8' }).end(leaderboardCsv(table));
  } else if (path === `${BOARD}/2`) {
    res.writeHead(200, { 'set-cookie': 'seen=1' }).end(`page 2, render ${renders.get(path)}`);
  } else if (path.startsWith(BOARD)) {
    // What a page would print if it read the visitor's request: none of it may be kept.
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`cookie=${req.headers.cookie ?? 'none'} auth=${req.headers.authorization ?? 'none'}`);
  } else res.writeHead(404).end('not found');
}

const get = (path: string, headers: Record<string, string> = {}) =>
  cacheGet(`${base}${path}`, headers);
const text = async (path: string, headers: Record<string, string> = {}) => {
  const r = await get(path, headers);
  return { ...r, body: r.raw.toString() };
};

async function accepted(name: string, speedup: number): Promise<string> {
  return acceptedSubmission(t.db, { userId: await makeUser(t.db, name), version, speedup });
}

beforeAll(async () => {
  t = await createTestDatabase();
  ({ version } = await registerChallenge(t.db));
  server = createServer(
    cachingLeaderboards(
      (req, res) => {
        upstream(req, res).catch((error: unknown) => res.writeHead(500).end(String(error)));
      },
      { now: () => clock },
    ),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await t?.drop();
});
beforeEach(() => {
  // Every copy from an earlier test is past its age: each test starts from fresh renders.
  clock += LEADERBOARD_MAX_AGE_S * 1000 + 1;
  renders.clear();
});

describe('the leaderboard cache', () => {
  it('shows a recorded score and a disqualification once a copy is LEADERBOARD_MAX_AGE_S old', async () => {
    await accepted('ada', 2);
    const csv = `${BOARD}/export.csv`;
    const first = await text(csv);
    expect([first.status, first.cache]).toEqual([200, 'MISS']);
    expect(first.body).toContain('ada');

    const bob = await accepted('bob', 3);
    // Within the fresh second, the kept copy: bob is not in it yet, and nothing rendered again.
    const cached = await text(csv);
    expect([cached.cache, cached.body.includes('bob')]).toEqual(['HIT', false]);
    expect(renders.get(csv)).toBe(1);

    // No copy older than LEADERBOARD_MAX_AGE_S is served: the next visitor waits for a new one.
    clock += LEADERBOARD_MAX_AGE_S * 1000;
    const fresh = await text(csv);
    expect([fresh.cache, fresh.body.includes('bob')]).toEqual(['MISS', true]);

    const organizer = await makeUser(t.db, 'organizer');
    await disqualifySubmission(t.db, {
      actorId: organizer,
      submissionId: bob,
      reason: 'cached output',
    });
    // Older than LEADERBOARD_REVALIDATE_S: still served, while a new copy renders behind it.
    clock += LEADERBOARD_REVALIDATE_S * 1000;
    const stale = await text(csv);
    expect(stale.cache).toBe('STALE');
    clock += LEADERBOARD_MAX_AGE_S * 1000;
    const after = await text(csv);
    expect(after.body).toContain('ada');
    expect(after.body).not.toContain('bob');
  });

  it('renders once for visitors who arrive together, and keeps no visitor’s header', async () => {
    const visitors = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        text(BOARD, { cookie: `session=visitor-${i}`, authorization: `Bearer token-${i}` }),
      ),
    );
    expect(renders.get(BOARD)).toBe(1);
    expect(new Set(visitors.map((v) => v.body))).toEqual(new Set(['cookie=none auth=none']));
    const later = await text(BOARD, { cookie: 'session=someone-else' });
    expect([later.cache, later.body]).toEqual(['HIT', 'cookie=none auth=none']);
  });

  it('passes to Next every time what is not a plain leaderboard document', async () => {
    // A response that sets a cookie is one visitor's: never kept.
    expect((await text(`${BOARD}/2`)).body).toBe('page 2, render 1');
    expect((await text(`${BOARD}/2`)).body).toBe('page 2, render 2');
    // Client navigations (RSC payloads per router state), a query string, another address.
    const rsc = await text(BOARD, { rsc: '1', cookie: 'session=a' });
    expect([rsc.cache, rsc.body]).toEqual([null, 'cookie=session=a auth=none']);
    const query = await text(`${BOARD}?_rsc=x`, { cookie: 'session=b' });
    expect([query.cache, query.body]).toEqual([null, 'cookie=session=b auth=none']);
    expect((await text('/challenges/wordcount')).status).toBe(404);
    expect(isLeaderboardPath('/challenges/Not_A_Slug/leaderboard')).toBe(false);
    // The signed-in contestant's own row key is per session: never one of the cached addresses.
    expect(isLeaderboardPath(`${BOARD}/own-row`)).toBe(false);
    expect(isLeaderboardPath(`${BOARD}/3`)).toBe(true);
    // A visitor's forged render marker is dropped, not obeyed.
    renders.clear();
    await text(BOARD);
    const forged = await text(BOARD, { 'x-perfjudge-cache-fill': 'guess', cookie: 'session=c' });
    expect([forged.cache, forged.body]).toEqual(['HIT', 'cookie=none auth=none']);
    expect(renders.get(BOARD)).toBe(1);
  });

  it('compresses a copy for visitors who accept it', async () => {
    const plain = await get(`${BOARD}/export.csv`);
    const br = await get(`${BOARD}/export.csv`, { 'accept-encoding': 'gzip, br' });
    const gzip = await get(`${BOARD}/export.csv`, { 'accept-encoding': 'gzip, br;q=0' });
    expect([plain.encoding, br.encoding, gzip.encoding]).toEqual([null, 'br', 'gzip']);
    expect(brotliDecompressSync(br.raw)).toEqual(plain.raw);
    expect(gunzipSync(gzip.raw)).toEqual(plain.raw);
  });
});

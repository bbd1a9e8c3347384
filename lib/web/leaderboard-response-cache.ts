// The production server's cache of the public leaderboard responses (the pages and the CSV and
// Markdown exports), in front of Next.js. Next renders them per request (no ISR); at 50 visitors
// at once that, or even Next serving a cached 200 KB page, queues. This keeps each response as one
// buffer per address, compressed once per copy, and answers from it at a few hundred microseconds.
// Every visitor gets the same bytes: a copy is rendered by a request of this server to itself that
// carries no cookie or other header of a visitor, a response that sets a cookie is never kept, and
// only plain document requests are served (never Next's client-navigation requests, which differ
// per visitor's router state). Freshness (lib/web/leaderboard-freshness.ts): a copy older than
// LEADERBOARD_REVALIDATE_S is rendered again in the background while it is still served, and one
// older than LEADERBOARD_MAX_AGE_S is never served: the request waits for the new copy.
import {
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import { randomBytes } from 'node:crypto';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { LEADERBOARD_MAX_AGE_S, LEADERBOARD_REVALIDATE_S } from './leaderboard-freshness';
import { leaderboardSlugSchema } from './leaderboard-slug';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** Response headers that describe one transfer, not the response: set again for each visitor. */
const PER_TRANSFER = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'content-encoding',
  'date',
  'etag',
  'vary',
]);

/** The header that marks this server's own request for a new copy (its value: this process's token). */
const FILL_HEADER = 'x-perfjudge-cache-fill';
/** HIT (fresh copy), STALE (served while a new one renders), MISS (this request waited for it). */
export const CACHE_STATUS_HEADER = 'x-perfjudge-cache';

export interface LeaderboardCacheOptions {
  /** Milliseconds since the epoch; tests move it on. */
  now?: () => number;
  /** Addresses kept at most (pages of every challenge); the oldest goes first. */
  maxEntries?: number;
}

interface Copy {
  headers: OutgoingHttpHeaders;
  body: Buffer;
  gzip?: Buffer;
  br?: Buffer;
  /** When its render was asked for: its figures are at least this recent. */
  renderedAt: number;
}

interface Upstream {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A public leaderboard address: /challenges/<slug>/leaderboard[/<n>|/export.csv|/export.md]. */
export function isLeaderboardPath(path: string): boolean {
  const m =
    /^\/challenges\/([^/]+)\/leaderboard(?:\/(?:[1-9][0-9]{0,3}|export\.csv|export\.md))?$/.exec(
      path,
    );
  return m !== null && leaderboardSlugSchema.safeParse(m[1]).success;
}

/**
 * A plain request for a leaderboard document. A query string (Next's `_rsc`), an `RSC` header or
 * any `Next-*` header (router state, prefetch, server action) asks for something else.
 */
function cacheable(req: IncomingMessage): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const url = req.url ?? '';
  if (url.includes('?') || !isLeaderboardPath(url)) return false;
  return !Object.keys(req.headers).some((h) => h === 'rsc' || h.startsWith('next-'));
}

/** The best encoding the visitor accepts: brotli, gzip or none (q=0 refuses one). */
function encodingFor(acceptEncoding: string | undefined): 'br' | 'gzip' | 'identity' {
  const accepted = new Set(
    (acceptEncoding ?? '')
      .split(',')
      .map((part) => part.trim().toLowerCase().split(';'))
      .filter(([, q]) => !/^\s*q=0(?:\.0*)?\s*$/.test(q ?? ''))
      .map(([name]) => name),
  );
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip')) return 'gzip';
  return 'identity';
}

function bodyFor(copy: Copy, encoding: 'br' | 'gzip' | 'identity'): Buffer {
  // Compressed at most once per copy, on the first visitor who accepts it (not per request).
  if (encoding === 'br')
    return (copy.br ??= brotliCompressSync(copy.body, {
      params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_SIZE_HINT]: copy.body.length },
    }));
  if (encoding === 'gzip') return (copy.gzip ??= gzipSync(copy.body, { level: 6 }));
  return copy.body;
}

function send(req: IncomingMessage, res: ServerResponse, copy: Copy, status: string): void {
  const encoding = encodingFor(req.headers['accept-encoding']);
  const body = bodyFor(copy, encoding);
  const headers: OutgoingHttpHeaders = {
    ...copy.headers,
    vary: 'Accept-Encoding',
    'content-length': body.length,
    [CACHE_STATUS_HEADER]: status,
  };
  if (encoding !== 'identity') headers['content-encoding'] = encoding;
  res.writeHead(200, headers);
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** Relays a response that is not kept (a 404, an error, one that sets a cookie) as it came. */
function relay(req: IncomingMessage, res: ServerResponse, upstream: Upstream): void {
  const headers: OutgoingHttpHeaders = { [CACHE_STATUS_HEADER]: 'MISS' };
  for (const [name, value] of Object.entries(upstream.headers))
    if (!PER_TRANSFER.has(name) && value !== undefined) headers[name] = value;
  headers['content-length'] = upstream.body.length;
  res.writeHead(upstream.status, headers);
  res.end(req.method === 'HEAD' ? undefined : upstream.body);
}

/** GET `path` from the server that took `req` (its own address), with no header of the visitor's. */
function fetchFromSelf(req: IncomingMessage, path: string, token: string): Promise<Upstream> {
  const local = req.socket.localAddress ?? '127.0.0.1';
  const host = local.startsWith('::ffff:') ? local.slice(7) : local;
  const port = req.socket.localPort;
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host,
        port,
        path,
        method: 'GET',
        // Not even the visitor's Host: a page that printed it would keep one visitor's for all.
        headers: {
          [FILL_HEADER]: token,
          host: `${host.includes(':') ? `[${host}]` : host}:${port}`,
        },
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 500,
            headers: response.headers,
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/**
 * Wraps the server's request listener: leaderboard documents from the cache, everything else
 * (and the cache's own renders) to `next`. Should the cache fail to get a copy, the request goes
 * to `next` as if there were no cache.
 */
export function cachingLeaderboards(
  next: Listener,
  options: LeaderboardCacheOptions = {},
): Listener {
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 256;
  const token = randomBytes(16).toString('hex');
  const copies = new Map<string, Copy>();
  /** One render per address at a time, whoever asked: waiters share it. */
  const rendering = new Map<string, Promise<Copy | Upstream>>();

  function render(req: IncomingMessage, path: string): Promise<Copy | Upstream> {
    const running = rendering.get(path);
    if (running) return running;
    const renderedAt = now();
    const promise = fetchFromSelf(req, path, token)
      .then((upstream): Copy | Upstream => {
        const keep = upstream.status === 200 && upstream.headers['set-cookie'] === undefined;
        if (!keep) {
          copies.delete(path);
          return upstream;
        }
        const headers: OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(upstream.headers))
          if (!PER_TRANSFER.has(name) && value !== undefined) headers[name] = value;
        const copy: Copy = { headers, body: upstream.body, renderedAt };
        copies.delete(path); // re-inserted last: the Map's order is the order of renders
        copies.set(path, copy);
        if (copies.size > maxEntries) copies.delete(copies.keys().next().value ?? path);
        return copy;
      })
      .finally(() => rendering.delete(path));
    rendering.set(path, promise);
    return promise;
  }

  async function serve(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const copy = copies.get(path);
    const age = copy ? now() - copy.renderedAt : Infinity;
    if (copy && age < LEADERBOARD_REVALIDATE_S * 1000) return send(req, res, copy, 'HIT');
    if (copy && age < LEADERBOARD_MAX_AGE_S * 1000) {
      render(req, path).catch((error: unknown) =>
        console.error(`web: leaderboard cache: ${path}: ${(error as Error).message}`),
      );
      return send(req, res, copy, 'STALE');
    }
    const fresh = await render(req, path);
    if ('renderedAt' in fresh) send(req, res, fresh, 'MISS');
    else relay(req, res, fresh);
  }

  return (req, res) => {
    if (req.headers[FILL_HEADER] !== undefined) {
      // This server's own render: to Next as it is. A visitor's forged marker is only ignored.
      const own = req.headers[FILL_HEADER] === token;
      delete req.headers[FILL_HEADER];
      if (own) return next(req, res);
    }
    if (!cacheable(req)) return next(req, res);
    const path = req.url ?? '';
    serve(req, res, path).catch((error: unknown) => {
      console.error(`web: leaderboard cache: ${path}: ${(error as Error).message}`);
      if (!res.headersSent) next(req, res);
    });
  };
}

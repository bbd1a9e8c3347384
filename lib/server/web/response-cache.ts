// The production server's cache of whole responses, in front of Next.js (scripts/web-server.ts).
// Next renders each page per request, and at 50 visitors at once that queues: a render costs tens of
// milliseconds here, even for a small page. A policy says which requests it caches and under what
// address: the public leaderboards under their path, for everyone (lib/server/web/leaderboard-response-
// cache.ts); a settled submission page under its viewer and the version of the rows it shows
// (lib/server/web/submission-page-cache.ts). A copy is one buffer per address, compressed once per copy,
// answered from at well under a millisecond.
// A copy is rendered by a request of this server to itself, carrying only the visitor's headers the
// policy names (a private page's cookie; none for a public one). A response that is not a 200, or
// that sets a cookie, is never kept; only plain document requests are cached (never Next's client-
// navigation requests, which differ per visitor's router state). Age: a copy older than the policy's
// freshS is rendered again in the background while it is still served, and one older than its
// maxAgeS is never served: the request waits for the new copy. One render per address at a time.
import {
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import { randomBytes } from 'node:crypto';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';

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

export interface ResponseCacheOptions {
  /** Milliseconds since the epoch; tests move it on. */
  now?: () => number;
  /** Addresses kept at most (every policy's together); the oldest render goes first. */
  maxEntries?: number;
}

/** Where a request's copy is kept and how old it may be served. */
export interface CacheAddress {
  /** The copy's key: the path, and for a private page its viewer and its rows' version. */
  key: string;
  /** The visitor's headers the render carries (a private page's cookie); none for a public one. */
  forward?: Record<string, string>;
  /** Served as it is while younger than this; then served while a new copy renders. */
  freshS: number;
  /** Never served older than this: the request waits for a new copy. */
  maxAgeS: number;
}

/** Which requests a cache keeps, under what address. */
export interface CachePolicy {
  /** In the server's log lines. */
  name: string;
  /** The paths it may cache (cheap: asked of every request). */
  handles(path: string): boolean;
  /** The address of a plain document request for such a path; null when it is not to be cached. */
  address(req: IncomingMessage, path: string): CacheAddress | null | Promise<CacheAddress | null>;
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

/**
 * A plain document request. A query string (Next's `_rsc`), an `RSC` header or any `Next-*` header
 * (router state, prefetch, server action) asks for something else.
 */
function plainDocumentRequest(req: IncomingMessage): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  if ((req.url ?? '').includes('?')) return false;
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

/**
 * GET `path` from the server that took `req` (its own address), with no header of the visitor's
 * but those `forward` names.
 */
function fetchFromSelf(
  req: IncomingMessage,
  path: string,
  token: string,
  forward: Record<string, string>,
): Promise<Upstream> {
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
          ...forward,
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
 * Wraps the server's request listener: what a policy caches from the cache, everything else (and
 * the cache's own renders) to `next`. Should the cache fail to find an address or get a copy, the
 * request goes to `next` as if there were no cache.
 */
export function cachingResponses(
  next: Listener,
  policies: readonly CachePolicy[],
  options: ResponseCacheOptions = {},
): Listener {
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 256;
  const token = randomBytes(16).toString('hex');
  const copies = new Map<string, Copy>();
  /** One render per address at a time, whoever asked: waiters share it. */
  const rendering = new Map<string, Promise<Copy | Upstream>>();

  function render(req: IncomingMessage, path: string, at: CacheAddress): Promise<Copy | Upstream> {
    const running = rendering.get(at.key);
    if (running) return running;
    const renderedAt = now();
    const promise = fetchFromSelf(req, path, token, at.forward ?? {})
      .then((upstream): Copy | Upstream => {
        const keep = upstream.status === 200 && upstream.headers['set-cookie'] === undefined;
        if (!keep) {
          copies.delete(at.key);
          return upstream;
        }
        const headers: OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(upstream.headers))
          if (!PER_TRANSFER.has(name) && value !== undefined) headers[name] = value;
        const copy: Copy = { headers, body: upstream.body, renderedAt };
        copies.delete(at.key); // re-inserted last: the Map's order is the order of renders
        copies.set(at.key, copy);
        if (copies.size > maxEntries) copies.delete(copies.keys().next().value ?? at.key);
        return copy;
      })
      .finally(() => rendering.delete(at.key));
    rendering.set(at.key, promise);
    return promise;
  }

  async function serve(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    policy: CachePolicy,
  ): Promise<void> {
    const at = await policy.address(req, path);
    if (!at) return next(req, res);
    const copy = copies.get(at.key);
    const age = copy ? now() - copy.renderedAt : Infinity;
    if (copy && age < at.freshS * 1000) return send(req, res, copy, 'HIT');
    if (copy && age < at.maxAgeS * 1000) {
      render(req, path, at).catch((error: unknown) =>
        console.error(`web: ${policy.name} cache: ${path}: ${(error as Error).message}`),
      );
      return send(req, res, copy, 'STALE');
    }
    const fresh = await render(req, path, at);
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
    if (!plainDocumentRequest(req)) return next(req, res);
    const path = req.url ?? '';
    // The first policy that knows the path; the others are not asked.
    const policy = policies.find((p) => p.handles(path));
    if (!policy) return next(req, res);
    serve(req, res, path, policy).catch((error: unknown) => {
      console.error(`web: ${policy.name} cache: ${path}: ${(error as Error).message}`);
      if (!res.headersSent) next(req, res);
    });
  };
}

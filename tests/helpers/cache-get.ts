// A GET through the production server's response cache (lib/server/web/response-cache.ts), by node:http,
// not fetch: fetch asks for compression itself and undoes it.
import { request } from 'node:http';
import { CACHE_STATUS_HEADER } from '../../lib/server/web/response-cache';

export interface CacheResponse {
  status: number;
  /** HIT, STALE or MISS; null when the cache left the request to Next. */
  cache: string | null;
  encoding: string | null;
  raw: Buffer;
}

export function cacheGet(
  url: string,
  headers: Record<string, string> = {},
): Promise<CacheResponse> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          cache: (response.headers[CACHE_STATUS_HEADER] as string | undefined) ?? null,
          encoding: response.headers['content-encoding'] ?? null,
          raw: Buffer.concat(chunks),
        }),
      );
    })
      .on('error', reject)
      .end();
  });
}

// The CLI's one HTTP client against a real local HTTP server: every refusal maps to one failure,
// one error code of the error model and one exit code, in the server's words where it gave them.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClientError, callApi } from '../../lib/server/submit/api-client';

let server: Server;
let url: string;
const seen: { path: string; auth: string | undefined }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', auth: req.headers.authorization });
    const status = Number(/\/api\/status\/(\d+)/.exec(req.url ?? '')?.[1] ?? 200);
    if (status === 429) res.setHeader('retry-after', '30');
    res.statusCode = status;
    res.setHeader('content-type', 'application/json');
    res.end(
      status < 300
        ? JSON.stringify({ ok: true })
        : status === 502
          ? '<html>bad gateway</html>'
          : JSON.stringify({ error: { message: 'because', code: 'x', reason: 'protected-file' } }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/prefix`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

const call = (status: number) =>
  callApi({ server: url, token: 'pj_t', method: 'GET', path: `status/${status}` }).catch(
    (error: unknown) => error as ApiClientError,
  );

describe('callApi', () => {
  it('answers a 2xx with its JSON, under the server path prefix, with the token', async () => {
    expect(await call(200)).toEqual({ status: 200, body: { ok: true } });
    expect(seen.at(-1)).toEqual({ path: '/prefix/api/status/200', auth: 'Bearer pj_t' });
  });

  it.each([
    [401, 'unauthorized', 'unauthorized', 2, /refused the token \(401\): because/],
    [403, 'forbidden', 'forbidden', 2, /not allowed \(403\): because/],
    [404, 'not-found', 'not-found', 2, /not found \(404\): because/],
    [409, 'rejected', 'rejected', 1, /refused \(409\): because/],
    [413, 'too-large', 'too-large', 1, /too large \(413\)/],
    [422, 'rejected', 'rejected', 1, /refused \(422\): because/],
    [429, 'rate-limited', 'quota', 2, /too many requests \(429\): because; try again in 30 s/],
    [500, 'server', 'unavailable', 2, /the server failed \(500\): because/],
    [502, 'server', 'unavailable', 2, /the server failed \(502\)$/],
    [418, 'protocol', 'invalid-result', 2, /unexpected answer 418/],
  ])('maps %i to %s (code %s, exit %i)', async (status, failure, code, exitCode, words) => {
    const error = await call(status);
    expect(error).toBeInstanceOf(ApiClientError);
    expect(error).toMatchObject({ failure, code, exitCode, status });
    expect((error as ApiClientError).message).toMatch(words);
  });

  it('says which rule refused it', async () => {
    expect(await call(422)).toMatchObject({ reason: 'protected-file' });
  });

  it('says when nothing answers, or the server is no http(s) URL', async () => {
    const spare = createServer();
    await new Promise<void>((resolve) => spare.listen(0, '127.0.0.1', resolve));
    const port = (spare.address() as AddressInfo).port;
    await new Promise((resolve) => spare.close(resolve));
    const closed = await callApi({
      server: `http://127.0.0.1:${port}`,
      token: 't',
      method: 'GET',
      path: 'x',
    }).catch((error: unknown) => error);
    expect(closed).toMatchObject({ failure: 'unreachable', exitCode: 2 });
    expect((closed as Error).message).toMatch(
      new RegExp(`cannot reach http://127.0.0.1:${port} \\(ECONNREFUSED\\)`),
    );
    await expect(
      callApi({ server: 'ftp://example.org', token: 't', method: 'GET', path: 'x' }),
    ).rejects.toThrow(/not an http\(s\) URL/);
  });
});

// The web app's server: Next.js's request handler behind a plain Node HTTP server, so that each
// request's client address comes from its connection (Next.js route handlers never see the socket)
// or, only when the peer is a trusted proxy (PERFJUDGE_TRUSTED_PROXIES), from its forwarding
// headers. The resolved address replaces whatever the client sent as CLIENT_ADDRESS_HEADER,
// X-Forwarded-For and X-Real-IP, so nothing behind this server can be handed a forged one. The
// public leaderboards and settled submission pages are answered from an in-process cache in front
// of Next.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { env, REPO_ROOT } from '../lib/core/config/env';
import {
  CLIENT_ADDRESS_HEADER,
  markClientAddressServer,
  resolveClientAddress,
  trustedProxies,
} from '../lib/core/net/client-address';
import { auth } from '../lib/server/auth/auth';
import { createPgPool, databaseUrl } from '../lib/server/db/client';
import { submissionPageVersion } from '../lib/server/db/submissions/submission-page-version';
import { leaderboardPolicy } from '../lib/server/web/leaderboard-response-cache';
import { cachingResponses } from '../lib/server/web/response-cache';
import { submissionPagePolicy } from '../lib/server/web/submission-page-cache';

/** The little of Next.js's custom-server API used here (its own types would retype process.env). */
interface NextApp {
  prepare(): Promise<void>;
  getRequestHandler(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  close?(): Promise<void>;
}
type NextFactory = (options: {
  dev: boolean;
  dir: string;
  port: number;
  hostname?: string;
}) => NextApp;

interface ServerOptions {
  port: number;
  /** Unset: every interface, as `next start`. */
  hostname?: string;
}

function parseArgs(argv: string[]): ServerOptions {
  const options: ServerOptions = { port: 3000 };
  for (let i = 0; i < argv.length; i++) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if ((flag === '--port' || flag === '-p') && value && /^\d{1,5}$/.test(value)) {
      options.port = Number(value);
      i++;
    } else if ((flag === '--hostname' || flag === '-H') && value) {
      options.hostname = value;
      i++;
    } else {
      throw new Error(`web-server: bad argument ${flag ?? ''} (usage: --port N --hostname H)`);
    }
  }
  return options;
}

function firstHeader(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

export async function main(argv: string[]): Promise<number> {
  const started = performance.now();
  const options = parseArgs(argv);
  const proxies = trustedProxies(env().PERFJUDGE_TRUSTED_PROXIES);
  markClientAddressServer();
  const next = createRequire(import.meta.url)('next') as NextFactory;
  const app = next({
    dev: false,
    dir: REPO_ROOT,
    port: options.port,
    ...(options.hostname ? { hostname: options.hostname } : {}),
  });
  await app.prepare();
  const handle = app.getRequestHandler();
  const toNext = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      console.error(`web: ${(error as Error).stack ?? String(error)}`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  };
  // The public leaderboards and settled submission pages from an in-process cache
  // (lib/server/web/response-cache.ts).
  const pool = createPgPool(databaseUrl());
  const serve = cachingResponses(toNext, [
    leaderboardPolicy,
    submissionPagePolicy({
      sessionCookieName: (await auth().$context).authCookies.sessionToken.name,
      version: (options) => submissionPageVersion(pool, options),
    }),
  ]);
  const server = createServer((req, res) => {
    const address = resolveClientAddress(
      {
        peer: req.socket.remoteAddress,
        forwardedFor: firstHeader(req, 'x-forwarded-for'),
        realIp: firstHeader(req, 'x-real-ip'),
      },
      proxies,
    );
    req.headers[CLIENT_ADDRESS_HEADER] = address;
    req.headers['x-forwarded-for'] = address;
    delete req.headers['x-real-ip'];
    serve(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.hostname, resolve);
  });
  const where = `http://${options.hostname ?? 'localhost'}:${options.port}`;
  console.log(`web: Ready in ${Math.round(performance.now() - started)}ms on ${where}`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  // Stop taking connections, let requests in flight finish briefly, then leave.
  server.closeIdleConnections();
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      server.closeAllConnections();
      resolve();
    }, 5_000);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
  });
  await Promise.race([app.close?.(), new Promise((resolve) => setTimeout(resolve, 5_000))]);
  await pool.end();
  return 0;
}

// Next.js calls register() once when the web server starts. The web app makes judging jobs from
// the contest's benchmark definition in the database; an environment that asks for another is
// said here, once, and not used (docs/operations.md). Not awaited: a database that is down must
// not keep the server from starting (/api/health reports it).
export function register(): void {
  // Literally process.env.NEXT_RUNTIME: Next.js replaces it at build time, so the edge bundle drops
  // the database code below.
  // eslint-disable-next-line no-restricted-syntax -- a build-time constant, not the environment
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  void (async () => {
    const { env } = await import('./lib/core/config/env');
    if (!env().DATABASE_URL) return;
    const { db } = await import('./lib/server/db/client');
    const { sayBenchmarkDisagreements } = await import('./lib/server/db/contest/contest-benchmark');
    await sayBenchmarkDisagreements(db(), (line) => console.warn(`web: ${line}`));
  })().catch((error: Error) =>
    console.warn(`web: benchmark definition not checked: ${error.message}`),
  );
}

// The web app (app/): Next.js at the repository's root, so it shares lib/ and contracts/ with the
// CLI, the runner and the scorer.
import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // A separate build folder per concurrent server (tests, benchmarks, several developers).
  distDir: process.env.PERFJUDGE_NEXT_DIST_DIR || '.next',
  poweredByHeader: false,
  // `npm test` type-checks and lints the whole repository; the build need not do it twice.
  typescript: { ignoreBuildErrors: true },
  // Node-only packages loaded as they are rather than bundled.
  serverExternalPackages: [
    'bullmq',
    'ioredis',
    'pg',
    '@prisma/adapter-pg',
    'archiver',
    'rate-limiter-flexible',
  ],
  // The final leaderboard's pages and exports are the only ISR routes (revalidate = 1; the live
  // leaderboard has the server's own cache, by the same rule): a cached copy older than this many
  // seconds is never served, the request waits for a fresh render instead of getting an
  // arbitrarily old page after a quiet spell (lib/server/web/leaderboard-freshness.ts, LEADERBOARD_MAX_AGE_S).
  expireTime: 3,
  experimental: {
    authInterrupts: true,
    // Turbopack keeps a build cache (about 120 MB) that makes the next build of the same folder
    // faster. The tests' build (tests/helpers/web-build.ts) is made once in a fresh clone in CI and
    // never again there, so it turns the cache off: writing it was about 12 CPU s and 30 s of wall
    // time of that build.
    turbopackFileSystemCacheForBuild: process.env.PERFJUDGE_NEXT_BUILD_CACHE !== 'off',
    // A page the browser already visited is reused on client navigation for this long (Next's
    // default for static pages is 5 minutes, which would keep a leaderboard tab stale); 30 is the least.
    staleTimes: { static: 30 },
  },
  async headers() {
    return [
      {
        source: '/:path*',
        headers: [
          { key: 'X-Content-Type-Options', value: 'nosniff' },
          { key: 'Referrer-Policy', value: 'same-origin' },
          { key: 'X-Frame-Options', value: 'DENY' },
        ],
      },
    ];
  },
};

export default nextConfig;

// GET /challenges/<slug>/final/export.csv: the published final leaderboard for a spreadsheet.
import { route } from '../../../../../lib/server/web/api-errors';
import { finalCsv } from '../../../../../lib/server/web/final-export';
import { finalDownload } from '../load-final';

// Cached like the leaderboard (lib/server/web/leaderboard-freshness.ts; values must be literals).
export const revalidate = 1;
/** No challenge is rendered at build time (no database then); each is cached on its first hit. */
export function generateStaticParams(): { slug: string }[] {
  return [];
}

export const GET = route(
  async (_request: Request, context: { params: Promise<{ slug: string }> }) =>
    finalDownload(context.params, 'csv', 'text/csv; charset=utf-8', finalCsv),
);

// GET /challenges/<slug>/leaderboard/export.csv: the leaderboard for a spreadsheet.
import { route } from '../../../../../lib/server/web/api-errors';
import { leaderboardCsv } from '../../../../../lib/server/web/leaderboard-export';
import { leaderboardDownload } from '../export-response';

// Rendered and cached like the page (page.tsx, lib/server/web/leaderboard-freshness.ts).
export const dynamic = 'force-dynamic';

export const GET = route(
  async (_request: Request, context: { params: Promise<{ slug: string }> }) =>
    leaderboardDownload(context.params, 'csv', 'text/csv; charset=utf-8', leaderboardCsv),
);

// GET /challenges/<slug>/leaderboard/export.md: the leaderboard as a Markdown table for a results post.
import { route } from '../../../../../lib/server/web/api-errors';
import { leaderboardMarkdown } from '../../../../../lib/server/web/leaderboard-export';
import { leaderboardDownload } from '../export-response';

// Rendered and cached like the page (page.tsx, lib/server/web/leaderboard-freshness.ts).
export const dynamic = 'force-dynamic';

export const GET = route(
  async (_request: Request, context: { params: Promise<{ slug: string }> }) =>
    leaderboardDownload(context.params, 'md', 'text/markdown; charset=utf-8', (table) =>
      leaderboardMarkdown(table, new Date()),
    ),
);

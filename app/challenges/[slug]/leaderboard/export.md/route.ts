// GET /challenges/<slug>/leaderboard/export.md: the leaderboard as a Markdown table for a results post.
import { route } from '../../../../../lib/web/api-errors';
import { leaderboardMarkdown } from '../../../../../lib/web/leaderboard-export';
import { leaderboardDownload } from '../export-response';

// Cached like the page (lib/web/leaderboard-freshness.ts; values must be literals).
export const revalidate = 1;
/** No challenge is rendered at build time (no database then); each is cached on its first hit. */
export function generateStaticParams(): { slug: string }[] {
  return [];
}

export const GET = route(
  async (_request: Request, context: { params: Promise<{ slug: string }> }) =>
    leaderboardDownload(context.params, 'md', 'text/markdown; charset=utf-8', (table) =>
      leaderboardMarkdown(table, new Date()),
    ),
);

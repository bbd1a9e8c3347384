// GET /challenges/<slug>/leaderboard/export.md: the leaderboard as a Markdown table for a results post.
import { route } from '../../../../../lib/web/api-errors';
import { leaderboardMarkdown } from '../../../../../lib/web/leaderboard-export';
import { leaderboardDownload } from '../export-response';

// Served from the cache and rebuilt at most every 5 s, like the page (values must be literals).
export const revalidate = 5;
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

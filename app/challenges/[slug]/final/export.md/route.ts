// GET /challenges/<slug>/final/export.md: the published final leaderboard as Markdown for a results post.
import { route } from '../../../../../lib/server/web/api-errors';
import { finalMarkdown } from '../../../../../lib/server/web/final-export';
import { finalDownload } from '../load-final';

// Cached like the leaderboard (lib/server/web/leaderboard-freshness.ts; values must be literals).
export const revalidate = 1;
/** No challenge is rendered at build time (no database then); each is cached on its first hit. */
export function generateStaticParams(): { slug: string }[] {
  return [];
}

export const GET = route(
  async (_request: Request, context: { params: Promise<{ slug: string }> }) =>
    finalDownload(context.params, 'md', 'text/markdown; charset=utf-8', (table) =>
      finalMarkdown(table, new Date()),
    ),
);

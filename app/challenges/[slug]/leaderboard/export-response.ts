// What both export routes share: the checked slug, the table, and a download that the production
// server's cache keeps for a few seconds like the page (lib/server/web/leaderboard-response-cache.ts).
import { db } from '../../../../lib/server/db/client';
import {
  getLeaderboardTable,
  type LeaderboardTable,
} from '../../../../lib/server/db/leaderboard/get-leaderboard-table';
import { leaderboardSlugSchema } from '../../../../lib/server/web/leaderboard-slug';

export async function leaderboardDownload(
  params: Promise<{ slug: string }>,
  extension: 'csv' | 'md',
  contentType: string,
  render: (table: LeaderboardTable) => string,
): Promise<Response> {
  const slug = leaderboardSlugSchema.parse((await params).slug);
  const table = await getLeaderboardTable(db(), { challengeSlug: slug });
  return new Response(render(table), {
    headers: {
      'content-type': contentType,
      'content-disposition': `attachment; filename="${slug}-leaderboard.${extension}"`,
    },
  });
}

// GET /challenges/<slug>/leaderboard/own-row: the signed-in contestant's row key on this challenge's
// public leaderboards (lib/server/web/leaderboard-row-key.ts), { key } or { key: null } when signed out.
// The pages are the same for every visitor and cached; this small answer is per user and never is.
import { route } from '../../../../../lib/server/web/api-errors';
import { leaderboardRowKey } from '../../../../../lib/server/web/leaderboard-row-key';
import { leaderboardSlugSchema } from '../../../../../lib/server/web/leaderboard-slug';
import { currentUser } from '../../../../../lib/server/web/session';

export const dynamic = 'force-dynamic';

export const GET = route(
  async (_request: Request, context: { params: Promise<{ slug: string }> }) => {
    const slug = leaderboardSlugSchema.parse((await context.params).slug);
    const user = await currentUser();
    return Response.json(
      { key: user ? leaderboardRowKey(slug, user.id) : null },
      { headers: { 'cache-control': 'private, no-store' } },
    );
  },
);

// What the final leaderboard page and its exports share: the checked slug, the contest, and the
// published final evaluation as a table (null before publication; unknown challenge: NotFoundError).
import { db } from '../../../../lib/server/db/client';
import { getContest } from '../../../../lib/server/db/contest/get-contest';
import { getFinalEvaluation } from '../../../../lib/server/db/final/get-final-evaluation';
import { finalTable, type FinalTable } from '../../../../lib/server/web/final-table';
import { leaderboardSlugSchema } from '../../../../lib/server/web/leaderboard-slug';

export interface PublishedFinal {
  contest: { slug: string; title: string };
  table: FinalTable | null;
}

export async function loadPublishedFinal(slug: string): Promise<PublishedFinal> {
  const checked = leaderboardSlugSchema.parse(slug);
  const contest = await getContest(db(), checked);
  const view = await getFinalEvaluation(db(), checked, { includeUnpublished: false });
  const formula = contest.manifest.scoring.formula === 'geomean' ? 'GEOMEAN' : 'SUM';
  return {
    contest: { slug: contest.slug, title: contest.title },
    // Only a published evaluation is anyone's to see (the data function says so; this checks again).
    table:
      view && view.publishedAt && view.status === 'DONE'
        ? finalTable({ slug: contest.slug, title: contest.title, formula }, view)
        : null,
  };
}

/** A download of the published final leaderboard; 404 before publication. */
export async function finalDownload(
  params: Promise<{ slug: string }>,
  extension: 'csv' | 'md',
  contentType: string,
  render: (table: FinalTable) => string,
): Promise<Response> {
  const { contest, table } = await loadPublishedFinal((await params).slug);
  if (!table)
    return new Response('The final results are not published yet.\n', {
      status: 404,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    });
  return new Response(render(table), {
    headers: {
      'content-type': contentType,
      'content-disposition': `attachment; filename="${contest.slug}-final.${extension}"`,
    },
  });
}

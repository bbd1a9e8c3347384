// The contest an organizer page under /organizer/challenges/<slug>/ is about, or the 404 page for a
// slug that is malformed or names no challenge.
import { notFound } from 'next/navigation';
import { db } from '../../../../lib/server/db/client';
import { NotFoundError } from '../../../../lib/server/db/errors';
import { getContest, type Contest } from '../../../../lib/server/db/contest/get-contest';
import { slugSchema } from '../../../../lib/server/web/organizer-settings-form';

export async function findContest(slug: string): Promise<Contest> {
  if (!slugSchema.safeParse(slug).success) notFound();
  try {
    return await getContest(db(), slug);
  } catch (error) {
    if (error instanceof NotFoundError) notFound();
    throw error;
  }
}

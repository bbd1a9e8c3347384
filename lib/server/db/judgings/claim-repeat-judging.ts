// Marks a "rejudge N times" judging as taken (WAITING) or being judged (JUDGING), from the judge
// queues' events as the claim tracker sees them; never after it is done.
import type { Db } from '../client';

export async function claimRepeatJudging(
  db: Db,
  options: { repeatId: string; status: 'WAITING' | 'JUDGING' },
): Promise<boolean> {
  const updated = await db.judgingRepeat.updateMany({
    where: {
      id: options.repeatId,
      status: {
        in: options.status === 'WAITING' ? ['QUEUED', 'WAITING', 'JUDGING'] : ['QUEUED', 'WAITING'],
      },
    },
    data: { status: options.status },
  });
  return updated.count > 0;
}

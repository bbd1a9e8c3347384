// Submit a patch from the browser: closed after the deadline, with the hourly quota in view.
import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { isSlug } from '../../../../contracts';
import { env } from '../../../../lib/core/config/env';
import { NotFoundError } from '../../../../lib/server/db/errors';
import { submitCommand } from '../../../../lib/server/kit/workflow';
import { formatDate } from '../../../../lib/server/web/format';
import { requireUser } from '../../../../lib/server/web/session';
import { submitPageData } from '../../../../lib/server/web/submit-page';
import { SubmitForm } from './submit-form';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Submit' };

export default async function SubmitPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  if (!isSlug(slug)) notFound();
  const user = await requireUser(`/challenges/${slug}/submit`);
  let data;
  try {
    data = await submitPageData(slug, user.id);
  } catch (error) {
    if (error instanceof NotFoundError) notFound();
    throw error;
  }
  const left = Math.max(0, data.quota - data.usedThisHour);
  return (
    <>
      <h1>Submit to {data.title}</h1>
      {!data.open ? (
        <div className="notice warn" role="status">
          Submissions are closed. {data.closedReason}{' '}
          <Link href={`/challenges/${slug}/leaderboard`}>See the leaderboard</Link>.
        </div>
      ) : left === 0 ? (
        <div className="notice warn" role="status" data-testid="quota">
          You have used all {data.quota} submissions of this hour.
          {data.nextSlotAt && <> The next one is possible at {formatDate(data.nextSlotAt)}.</>}
        </div>
      ) : (
        <>
          <p className="muted" data-testid="quota">
            {left} of {data.quota} submissions left this hour. Each is judged on every target; your
            best accepted one is your row on the leaderboard.
          </p>
          <SubmitForm slug={slug} patchBytes={data.patchBytes} />
        </>
      )}
      <p className="small muted">
        From the command line: <code>{submitCommand(env().PERFJUDGE_PUBLIC_URL, slug)}</code>{' '}
        (tokens on <Link href="/account">your account page</Link>).
      </p>
    </>
  );
}

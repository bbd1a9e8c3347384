// The organizer console's front page: each challenge's state with its links, the runners online
// (host, current job, last heartbeat) and the queue depths.
import type { Metadata } from 'next';
import { db } from '../../lib/server/db/client';
import { listChallengeStates } from '../../lib/server/db/contest/list-challenge-states';
import { getOrganizerStatus } from '../../lib/server/web/organizer-status';
import { requireOrganizer } from '../../lib/server/web/session';
import { AccountsUnderAttack } from './_components/accounts-under-attack';
import { ConsoleNav } from './_components/console-nav';
import { ChallengeStatesTable } from './_components/challenge-states-table';
import { QueuesTable } from './_components/queues-table';
import { RunnersTable } from './_components/runners-table';
import { ServiceStatusTable } from './_components/service-status';

export const metadata: Metadata = { title: 'Organizer console' };

export default async function OrganizerPage() {
  await requireOrganizer('/organizer');
  const [challenges, status] = await Promise.all([listChallengeStates(db()), getOrganizerStatus()]);
  return (
    <>
      <h1>Organizer console</h1>
      <ConsoleNav current="/organizer" />

      <h2>Challenges</h2>
      <ChallengeStatesTable challenges={challenges} />

      <AccountsUnderAttack />

      <h2>Runners online</h2>
      {!status.ok ? (
        <div className="notice error" role="alert">
          {status.error}
        </div>
      ) : (
        <>
          <RunnersTable runners={status.runners} />
          <ServiceStatusTable services={status.services} />
          {status.invalidRunnerKeys > 0 && (
            <p className="notice warn small">
              {status.invalidRunnerKeys} heartbeat(s) could not be read (a runner of another
              version?).
            </p>
          )}

          <QueuesTable queues={status.queues} />
        </>
      )}
    </>
  );
}

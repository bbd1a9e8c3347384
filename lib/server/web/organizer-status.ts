// What the console shows about the machinery: runners alive (their heartbeats) with the submission
// each is judging, and every queue's job counts. Redis being down is an answer ("unreachable"),
// never a crashed page.
import 'server-only';
import {
  SCORE_QUEUE,
  TARGET_IDS,
  type RunnerHeartbeat,
  type ServiceStatus,
} from '../../../contracts';
import { db } from '../db/client';
import { listJudgingSubmissions } from '../db/judgings/list-judging-submissions';
import { queuePrefix } from '../queue/connection';
import { withTimeout } from '../queue/producer';
import { listSupervisorReports } from '../queue/service-status';
// The heartbeat module itself, not runner/service/index.ts: the web bundle must not pull the runner.
import { listRunners } from '../queue/runner-heartbeat';
import { webCounters } from '../queue/web-counters';
import { webQueues } from './services';

const REDIS_TIMEOUT_MS = 2_000;

export interface RunnerStatus extends RunnerHeartbeat {
  /** Seconds since its last heartbeat. */
  ageSeconds: number;
  /** The submission of its current judging, when the database knows it. */
  currentSubmissionId: string | null;
}

export interface SupervisedService extends ServiceStatus {
  supervisor: string;
}

export interface QueueDepth {
  name: string;
  waiting: number;
  prioritized: number;
  active: number;
  delayed: number;
  waitingChildren: number;
  failed: number;
  completed: number;
}

export type OrganizerStatus =
  | {
      ok: true;
      runners: RunnerStatus[];
      invalidRunnerKeys: number;
      queues: QueueDepth[];
      /** The processes supervisors report (npm start's children, scorers): down or restarting too. */
      services: SupervisedService[];
    }
  | { ok: false; error: string };

export async function getOrganizerStatus(now = new Date()): Promise<OrganizerStatus> {
  let list: Awaited<ReturnType<typeof listRunners>>;
  let depths: QueueDepth[];
  let services: SupervisedService[];
  try {
    services = (
      await withTimeout(
        listSupervisorReports(webCounters(), queuePrefix()),
        REDIS_TIMEOUT_MS,
        'Listing supervised processes',
      )
    ).flatMap((report) => report.services.map((s) => ({ ...s, supervisor: report.supervisor })));
    list = await withTimeout(
      listRunners(webCounters(), queuePrefix()),
      REDIS_TIMEOUT_MS,
      'Listing runners',
    );
    const queues = webQueues();
    const names = [...TARGET_IDS.map((t) => ({ name: `judge-${t}`, q: queues.judgeQueue(t) }))];
    names.push({ name: SCORE_QUEUE, q: queues.scoreQueue() });
    depths = await withTimeout(
      Promise.all(
        names.map(async ({ name, q }) => {
          const c = await q.getJobCounts(
            'waiting',
            'prioritized',
            'active',
            'delayed',
            'waiting-children',
            'failed',
            'completed',
          );
          return {
            name,
            waiting: c.waiting ?? 0,
            prioritized: c.prioritized ?? 0,
            active: c.active ?? 0,
            delayed: c.delayed ?? 0,
            waitingChildren: c['waiting-children'] ?? 0,
            failed: c.failed ?? 0,
            completed: c.completed ?? 0,
          };
        }),
      ),
      REDIS_TIMEOUT_MS,
      'Counting queue jobs',
    );
  } catch (error) {
    console.error('web: organizer status:', error);
    return {
      ok: false,
      // The detail (connection refused, timeout) is in the server log; the page says what it means.
      error:
        'Redis is unreachable: runners and queue depths cannot be shown. Submissions are still stored, and the reconciler queues them once Redis is back.',
    };
  }
  const judgingIds = list.runners.flatMap((r) => (r.currentJob ? [r.currentJob.judgingId] : []));
  const submissions = await listJudgingSubmissions(db(), judgingIds);
  return {
    ok: true,
    runners: list.runners.map((r) => ({
      ...r,
      ageSeconds: Math.max(0, Math.round((now.getTime() - Date.parse(r.seenAt)) / 1000)),
      currentSubmissionId: r.currentJob ? (submissions.get(r.currentJob.judgingId) ?? null) : null,
    })),
    invalidRunnerKeys: list.invalid.length,
    queues: depths,
    services,
  };
}

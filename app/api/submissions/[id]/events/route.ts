// GET /api/submissions/[id]/events: the submission's live state as Server-Sent Events. The server
// polls PostgreSQL (judging rows) and Redis (the runners' BullMQ job progress) every POLL_MS and
// sends a `progress` event only when something changed; `done` when every target has its result,
// then closes. Heartbeat comments keep proxies from dropping an idle stream; a stream lives at most
// MAX_LIFETIME_MS, after which the browser's EventSource reconnects (and the access check runs again).
import { canViewPatch } from '../../../../../lib/core/access/patch-access';
import { db } from '../../../../../lib/server/db/client';
import { HttpError, route } from '../../../../../lib/server/web/api-errors';
import { webQueues } from '../../../../../lib/server/web/services';
import { requestUser } from '../../../../../lib/server/web/session';
import { submissionIdSchema } from '../../../../../lib/server/web/submission-id';
import {
  readSubmissionProgress,
  type SubmissionProgress,
} from '../../../../../lib/server/web/submission-progress';

export const dynamic = 'force-dynamic';

const POLL_MS = 750;
const HEARTBEAT_MS = 15_000;
const MAX_LIFETIME_MS = 5 * 60_000;
/** Open streams per server process; beyond it the page falls back to polling the JSON route. */
const MAX_STREAMS = 500;

const globalForEvents = globalThis as typeof globalThis & { perfjudgeEventStreams?: number };

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store, no-transform',
  connection: 'keep-alive',
  // nginx would otherwise buffer the stream and deliver it in one piece at the end.
  'x-accel-buffering': 'no',
};

/** Counts a new stream in, or refuses it (busy) when this process has MAX_STREAMS open. */
function reserveStream(): void {
  const open = globalForEvents.perfjudgeEventStreams ?? 0;
  if (open >= MAX_STREAMS)
    throw new HttpError(
      'busy',
      'Too many live streams; poll GET /api/submissions/[id] instead',
      {},
      { 'retry-after': '5' },
    );
  globalForEvents.perfjudgeEventStreams = open + 1;
}

function releaseStream(): void {
  globalForEvents.perfjudgeEventStreams = Math.max(
    0,
    (globalForEvents.perfjudgeEventStreams ?? 1) - 1,
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const GET = route(
  async (request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> => {
    const id = submissionIdSchema.parse((await context.params).id);
    const user = await requestUser(request);
    const first = await readSubmissionProgress(db(), webQueues(), id);
    if (!first || !canViewPatch(user, first.access))
      throw new HttpError('not-found', `No submission ${id}`);
    reserveStream();

    const encoder = new TextEncoder();
    let stopped = false;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        let lastData = '';
        let lastSentAt = Date.now();
        const send = (chunk: string) => {
          if (stopped) return;
          lastSentAt = Date.now();
          controller.enqueue(encoder.encode(chunk));
        };
        const stop = () => {
          if (stopped) return;
          stopped = true;
          releaseStream();
          try {
            controller.close();
          } catch {
            // Already closed by the client going away.
          }
        };
        const emit = (progress: SubmissionProgress) => {
          const data = JSON.stringify(progress);
          if (data !== lastData) {
            lastData = data;
            send(`event: progress\ndata: ${data}\n\n`);
          }
          if (progress.done) {
            send('event: done\ndata: {}\n\n');
            stop();
          }
        };
        request.signal.addEventListener('abort', stop);
        // How long a browser waits before reconnecting after the stream ends without `done`.
        send('retry: 1000\n\n');
        emit(first.progress);
        const startedAt = Date.now();
        void (async () => {
          while (!stopped) {
            await sleep(POLL_MS);
            if (stopped) break;
            if (Date.now() - startedAt >= MAX_LIFETIME_MS) {
              stop();
              break;
            }
            try {
              const next = await readSubmissionProgress(db(), webQueues(), id);
              if (!next) {
                stop();
                break;
              }
              emit(next.progress);
            } catch (error) {
              // A database hiccup: say nothing this tick and try again on the next one.
              console.error(`web: events for submission ${id}:`, error);
            }
            if (Date.now() - lastSentAt >= HEARTBEAT_MS) send(': heartbeat\n\n');
          }
        })();
      },
      cancel() {
        if (!stopped) {
          stopped = true;
          releaseStream();
        }
      },
    });
    return new Response(stream, { headers: SSE_HEADERS });
  },
);

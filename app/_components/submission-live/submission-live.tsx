'use client';
// The submission page's live part: one connection per page (Server-Sent Events from
// /api/submissions/[id]/events, or polling GET /api/submissions/[id] when SSE fails) feeding the
// overall verdict and each target's stage and progress bar. When a target finishes, the server
// components are re-rendered (router.refresh()) so its results appear without a reload.
import { useRouter } from 'next/navigation';
import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import type { SubmissionProgress } from '../../../lib/server/web/submission-progress';
import { formatScore, formatSpeedupInterval } from '../../../lib/server/web/format';
import { summarizeOutcome } from '../../../lib/server/web/outcome-summary';
import { describeTargetProgress } from '../../../lib/server/web/progress-words';
import { VerdictBadge } from '../verdict-badge';

const POLL_MS = 1_000;
/** EventSource errors in a row (no message between) before giving up on it and polling. */
const MAX_SSE_ERRORS = 3;

const LiveContext = createContext<SubmissionProgress | null>(null);

function useLive(): SubmissionProgress {
  const value = useContext(LiveContext);
  if (!value) throw new Error('a live component outside <SubmissionLive>');
  return value;
}

const doneTargets = (p: SubmissionProgress) =>
  p.targets
    .filter((t) => t.status === 'DONE')
    .map((t) => t.target)
    .join(',');

type Transport = 'sse' | 'polling' | 'idle';

async function fetchProgress(id: string): Promise<SubmissionProgress | null> {
  const response = await fetch(`/api/submissions/${encodeURIComponent(id)}`, {
    cache: 'no-store',
    headers: { accept: 'application/json' },
  });
  return response.ok ? ((await response.json()) as SubmissionProgress) : null;
}

/** The submission's event stream; `fail` once the server refuses it or it keeps failing. */
function openEvents(
  id: string,
  on: { progress: (p: SubmissionProgress) => void; done: () => void; fail: () => void },
): EventSource {
  let errors = 0;
  const source = new EventSource(`/api/submissions/${encodeURIComponent(id)}/events`);
  source.addEventListener('progress', (event) => {
    errors = 0;
    on.progress(JSON.parse((event as MessageEvent<string>).data) as SubmissionProgress);
  });
  source.addEventListener('done', on.done);
  source.onerror = () => {
    errors += 1;
    // CLOSED: the server answered with an error status; otherwise the browser is reconnecting.
    if (source.readyState === EventSource.CLOSED || errors >= MAX_SSE_ERRORS) on.fail();
  };
  return source;
}

/** How the page hears of progress (stream, polling, or not at all once done). */
function TransportLine({
  transport,
  progress,
}: {
  transport: Transport;
  progress: SubmissionProgress;
}) {
  return (
    <p className="small muted" aria-live="off" data-testid="live-transport">
      {transport === 'sse'
        ? 'Live: updates as the judge works.'
        : transport === 'polling'
          ? 'Live (polling every second).'
          : progress.done
            ? 'Judging finished.'
            : ''}
      {!progress.live &&
        !progress.done &&
        ' Live progress is unavailable right now; statuses still update.'}
    </p>
  );
}

export function SubmissionLive({
  initial,
  children,
}: {
  initial: SubmissionProgress;
  children: ReactNode;
}) {
  const router = useRouter();
  const [progress, setProgress] = useState(initial);
  const [transport, setTransport] = useState<Transport>(initial.done ? 'idle' : 'sse');
  const lastDone = useRef(doneTargets(initial));
  // A router.refresh() (a target finished, a rejudge) brings a new server state: it replaces what
  // the stream said last, or the view could stay on a stale "Judging…" after a missed last event.
  const [synced, setSynced] = useState(initial);
  if (synced !== initial) {
    setSynced(initial);
    setProgress(initial);
    setTransport(initial.done ? 'idle' : 'sse');
  }
  const { submissionId: id, done: initiallyDone } = initial;

  useEffect(() => {
    if (initiallyDone) return;
    lastDone.current = doneTargets(initial);
    let stopped = false;
    let source: EventSource | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;

    const apply = (next: SubmissionProgress) => {
      if (stopped) return;
      setProgress(next);
      const done = doneTargets(next);
      if (done !== lastDone.current) {
        lastDone.current = done;
        // A target finished (or was rejudged): fetch the server-rendered results.
        router.refresh();
      }
      if (next.done) stop();
    };
    const stop = () => {
      stopped = true;
      source?.close();
      clearTimeout(timer);
      setTransport('idle');
    };
    const poll = async () => {
      if (stopped) return;
      try {
        const next = await fetchProgress(id);
        if (next) apply(next);
      } catch {
        // Offline for a moment: the next tick tries again.
      }
      if (!stopped) timer = setTimeout(poll, POLL_MS);
    };
    const startPolling = () => {
      source?.close();
      source = null;
      setTransport('polling');
      void poll();
    };

    if (typeof EventSource === 'undefined') startPolling();
    else
      source = openEvents(id, {
        progress: apply,
        done: () => {
          // The final progress event came just before; a refresh catches a missed one.
          if (!stopped) {
            router.refresh();
            stop();
          }
        },
        fail: startPolling,
      });
    return () => {
      stopped = true;
      source?.close();
      clearTimeout(timer);
    };
  }, [id, initiallyDone, router]);

  return (
    <LiveContext.Provider value={progress}>
      {children}
      <TransportLine transport={transport} progress={progress} />
    </LiveContext.Provider>
  );
}

export function LiveOverallVerdict() {
  const p = useLive();
  return (
    <span data-testid="overall-verdict" className="row" style={{ display: 'inline-flex' }}>
      <VerdictBadge verdict={p.verdict} status={p.status} disqualified={p.disqualified} />
    </span>
  );
}

export function LiveScore() {
  const p = useLive();
  return (
    <span className="num" data-testid="overall-score">
      {p.score === null ? (p.done ? '–' : 'pending') : formatScore(p.score)}
    </span>
  );
}

export function LiveTargetStatus({ target }: { target: string }) {
  const p = useLive();
  const t = p.targets.find((x) => x.target === target);
  if (!t) return null;
  const percent = Math.round(t.overall * 100);
  const open = t.status !== 'DONE' && t.status !== 'CANCELLED';
  return (
    <div className="live-target" aria-live="polite">
      <div className="row">
        <span data-testid={`verdict-${target}`}>
          <VerdictBadge verdict={t.verdict} status={t.status} />
        </span>
        {t.status === 'DONE' && t.speedup !== null && (
          <span className="num" data-testid={`live-speedup-${target}`}>
            <strong>{formatSpeedupInterval(t.speedup, t.ciLow, t.ciHigh)}</strong>
          </span>
        )}
        {t.attempts > 1 && open && (
          <span className="badge warn" title="A platform fault was retried; not your patch's doing">
            attempt {t.attempts}
          </span>
        )}
      </div>
      {t.status === 'CANCELLED' && (
        <p className="small muted" data-testid={`not-judged-${target}`} style={{ margin: 0 }}>
          {t.message ?? 'not judged'}
        </p>
      )}
      {/* The stage's id for scripts and tests (data-stage too); its words for people beside it. */}
      {open && (
        <p className="small live-line" style={{ margin: '0.3em 0 0' }}>
          <span className="muted">Stage: </span>
          <span data-testid={`stage-${target}`} data-stage={t.stage}>
            {t.stage}
          </span>
          <span className="muted"> · </span>
          <span data-testid={`progress-${target}`}>{describeTargetProgress(t)}</span>
        </p>
      )}
      {open && (
        <div
          className="progress"
          role="progressbar"
          aria-label={`${target} judging progress`}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={percent}
          style={{ margin: '0.5em 0 0.3em' }}
        >
          <span style={{ width: `${percent}%` }} />
        </div>
      )}
    </div>
  );
}

/** The header's summary: each target's verdict and speedup, and a mixed outcome said in words. */
export function LiveOutcome() {
  const p = useLive();
  const mixed = summarizeOutcome(p.targets);
  return (
    <div data-testid="outcome-summary">
      <ul className="outcome-list">
        {p.targets.map((t) => (
          <li key={t.target} data-testid={`outcome-${t.target}`}>
            <a href={`#heading-${t.target}`}>{t.target}</a>{' '}
            <VerdictBadge verdict={t.verdict} status={t.status} />{' '}
            {t.status === 'DONE' && t.speedup !== null ? (
              <span className="num">{formatSpeedupInterval(t.speedup, t.ciLow, t.ciHigh)}</span>
            ) : t.status !== 'DONE' && t.status !== 'CANCELLED' ? (
              <span className="small muted">{describeTargetProgress(t)}</span>
            ) : null}
          </li>
        ))}
      </ul>
      {mixed && (
        <p
          className="notice error small"
          data-testid="mixed-outcome"
          style={{ margin: '0.4em 0 0' }}
        >
          {mixed}
        </p>
      )}
    </div>
  );
}

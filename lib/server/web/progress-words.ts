// The words of a target's live state, the same in the web page and any terminal that shows it:
// "Queued: 2 ahead, done in about 9 min", "Waiting for the host (1 ahead)", "Measuring: pair 3 of
// 10 to 40". Pure: the figures come from lib/server/web/submission-progress.ts.
import type { JudgingStatus, Stage, Verdict } from '../../../contracts';

export type LiveStage = Stage | 'queued' | 'starting' | 'done' | 'cancelled';

export interface PairFigures {
  done: number;
  /** The fewest pairs before an estimate (and its interval) means anything. */
  min: number | null;
  max: number | null;
  discarded: number;
}

export interface TargetProgressFigures {
  status: JudgingStatus;
  stage: LiveStage;
  verdict: Verdict | null;
  message: string | null;
  /** Queued: judgings of the same target ahead of this one. */
  ahead: number | null;
  /** Waiting: judgings ahead of this one for the host. */
  aheadForHost: number | null;
  pairs: PairFigures | null;
  /** Estimated milliseconds until this target's verdict, null when nothing sensible is known. */
  etaMs: number | null;
}

const STAGE_WORDS: Record<LiveStage, string> = {
  queued: 'Queued',
  starting: 'Starting',
  waiting: 'Waiting for the host',
  intake: 'Checking the patch',
  build: 'Building',
  test: 'Testing',
  measure: 'Measuring',
  profile: 'Profiling',
  report: 'Reporting',
  done: 'Finished',
  cancelled: 'Not judged',
};

/** "about 40 s", "about 3 min", "about 1 h 5 min": estimates are rough and say so. */
export function formatEta(ms: number): string {
  const s = Math.max(1, Math.round(ms / 1000));
  if (s < 60) return `about ${Math.max(5, Math.round(s / 5) * 5)} s`;
  const min = Math.round(s / 60);
  if (min < 60) return `about ${min} min`;
  return `about ${Math.floor(min / 60)} h ${min % 60} min`;
}

function pairWords(p: PairFigures): string {
  const of =
    p.min !== null && p.max !== null && p.min !== p.max
      ? `${p.min} to ${p.max}`
      : String(p.max ?? p.min ?? '?');
  const discarded = p.discarded > 0 ? `, ${p.discarded} discarded as disturbed` : '';
  const early =
    p.min !== null && p.done < p.min ? `; the speedup is estimated from pair ${p.min} on` : '';
  return `pair ${p.done} of ${of}${discarded}${early}`;
}

/** One line for the target: where it stands, then what it is doing, then the time left. */
export function describeTargetProgress(t: TargetProgressFigures): string {
  const eta = t.etaMs !== null ? formatEta(t.etaMs) : null;
  switch (t.stage) {
    case 'done':
      return STAGE_WORDS.done;
    case 'cancelled':
      return 'Not judged: the submission was settled without this target';
    case 'queued': {
      const ahead = t.ahead === null ? '' : t.ahead === 0 ? ': next in line' : `: ${t.ahead} ahead`;
      return `Queued${ahead}${eta ? `, done in ${eta}` : ''}`;
    }
    case 'waiting': {
      const ahead = t.aheadForHost === null ? '' : ` (${t.aheadForHost} ahead)`;
      return `Waiting for the host: another judging is using it${ahead}${eta ? `; done in ${eta}` : ''}`;
    }
    default: {
      const doing =
        t.stage === 'measure' && t.pairs
          ? `${STAGE_WORDS.measure}: ${pairWords(t.pairs)}`
          : t.message
            ? `${STAGE_WORDS[t.stage]}: ${t.message}`
            : STAGE_WORDS[t.stage];
      return `${doing}${eta ? ` · ${eta} left` : ''}`;
    }
  }
}

// The plausibility check of one judging, for organizers only: the solution's fastest run against
// the least time its input takes to read at the host's memory bandwidth.
// Contestants never see it: it is a reason for an organizer to read the patch, not a verdict, and
// telling a cheat the threshold would only teach it how slow to pretend to be.
import type { Plausibility } from '../../../contracts';
import { formatMs } from '../../../lib/server/web/format';
import { describePlausibility } from '../../../lib/core/stats/plausibility';

/** A least time of a small input is a fraction of a millisecond: more digits than formatMs has. */
function leastTime(ms: number): string {
  return ms < 1 ? `${ms.toFixed(3)} ms` : formatMs(ms);
}

export function PlausibilityLine({
  target,
  plausibility,
}: {
  target: string;
  /** The measure stage's figure: undefined in results from before the check, null without a bandwidth. */
  plausibility: Plausibility | null | undefined;
}) {
  if (plausibility === undefined) return null;
  if (plausibility === null)
    return (
      <p className="small muted" data-testid={`plausibility-${target}`}>
        Plausibility (organizers only): not checked, the runner could not measure this host&apos;s
        memory bandwidth.
      </p>
    );
  const p = plausibility;
  const figures = (
    <>
      fastest run {formatMs(p.fastestMs)}, least plausible time {leastTime(p.minPlausibleMs)} (
      {(p.inputBytes / 2 ** 20).toFixed(1)} MiB input at{' '}
      {(p.bandwidthBytesPerSecond / 1e9).toFixed(1)} GB/s memory bandwidth)
    </>
  );
  if (!p.flagged)
    return (
      <p className="small muted" data-testid={`plausibility-${target}`} data-flagged="false">
        Plausibility (organizers only): {figures}.
      </p>
    );
  return (
    <div
      className="notice warn"
      role="alert"
      data-testid={`plausibility-${target}`}
      data-flagged="true"
      title={describePlausibility(p)}
    >
      <span className="badge bad">Implausibly fast</span>{' '}
      <strong>Faster than this host can read the input:</strong> {figures}. A program this fast
      cannot have read its input; check what the patch does with it. Organizers only: the contestant
      does not see this.
    </div>
  );
}

/** The mark in the organizer's submissions list: which targets' judgings are flagged. */
export function PlausibilityMark({ flaggedTargets }: { flaggedTargets: string[] }) {
  if (!flaggedTargets.length) return null;
  return (
    <span
      className="badge bad"
      data-testid="plausibility-flag"
      title={`Implausibly fast on ${flaggedTargets.join(', ')}: a run faster than the host can read the input`}
    >
      implausibly fast
    </span>
  );
}

// The measure stage of an accepted judging: the speedup with its interval, baseline vs solution
// times, every timed run as a chart, and the counters side by side.
import type { CounterComparison, JudgingResult, TimeSummary } from '../../../contracts';
import {
  formatBytes,
  formatConfidence,
  formatCount,
  formatMs,
  formatSpeedupInterval,
} from '../../../lib/server/web/format';
import { describeHostDrift } from '../../../lib/core/stats/host-drift';
import { describeMeasureSession } from '../../../lib/core/stats/session-cost';
import { runsChartData, stopReasonText } from '../../../lib/server/web/submission-result';
import { RunsChart } from '../charts/runs-chart';

type Measure = NonNullable<JudgingResult['stages']['measure']>;

function TimeRow({ side, s }: { side: string; s: TimeSummary | null }) {
  return (
    <tr>
      <th scope="row">{side}</th>
      <td className="num">{s ? s.n : '–'}</td>
      <td className="num">{formatMs(s?.minMs)}</td>
      <td className="num">
        <strong>{formatMs(s?.medianMs)}</strong>
      </td>
      <td className="num">{formatMs(s?.maxMs)}</td>
      <td className="num">{s ? `${(s.cv * 100).toFixed(1)}%` : '–'}</td>
    </tr>
  );
}

function formatCounterValue(value: number | null, unit: string): string {
  if (value === null) return '–';
  if (unit === '%') return `${value.toFixed(1)}%`;
  if (unit === 'msec') return formatMs(value);
  if (Math.abs(value) >= 1000) return formatCount(value);
  return Number.isInteger(value) ? String(value) : value.toPrecision(3);
}

function CounterCell({ c, value }: { c: CounterComparison; value: number | null }) {
  if (c.status === 'unsupported')
    return (
      <td className="num">
        <span className="badge warn" title="This host cannot count it; not zero">
          unsupported
        </span>
      </td>
    );
  if (c.status === 'not-counted')
    return (
      <td className="num">
        <span className="badge" title="Counting was not scheduled (multiplexing)">
          not counted
        </span>
      </td>
    );
  return <td className="num">{formatCounterValue(value, c.unit)}</td>;
}

function CountersTable({ counters }: { counters: CounterComparison[] }) {
  // Counters the host could not count are one line, not a screen of "unsupported" rows.
  const unsupported = counters.filter((c) => c.status === 'unsupported');
  const shown = counters.filter((c) => c.status !== 'unsupported');
  return (
    <>
      <h3>Counters</h3>
      {shown.length > 0 && (
        <p className="small muted">
          Medians over the timed runs; ratio is solution ÷ baseline (below 1: the solution needs
          less).
        </p>
      )}
      {unsupported.length > 0 && (
        <p className="small" data-testid="unsupported-counters">
          <span className="badge warn" title="This host cannot count them; not zero">
            unsupported
          </span>{' '}
          {unsupported.length} of {counters.length} counters this host cannot count (a virtual
          machine has no hardware counters; not the same as zero):{' '}
          <span className="mono">{unsupported.map((c) => c.name).join(', ')}</span>.
        </p>
      )}
      {shown.length > 0 && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th>counter</th>
                <th className="num">baseline</th>
                <th className="num">solution</th>
                <th className="num">ratio</th>
                <th className="num" title="Share of the run the counter was counting">
                  counted
                </th>
              </tr>
            </thead>
            <tbody>
              {shown.map((c) => (
                <tr key={c.name}>
                  <td>
                    <span className="mono">{c.name}</span>
                    {c.unit && <span className="muted small"> {c.unit}</span>}
                    {c.kind === 'derived' && <span className="muted small"> (derived)</span>}
                  </td>
                  <CounterCell c={c} value={c.baseline} />
                  <CounterCell c={c} value={c.solution} />
                  <td className="num">{c.ratio === null ? '–' : c.ratio.toFixed(3)}</td>
                  <td className="num">
                    {c.runningPercent === null ? '–' : `${c.runningPercent.toFixed(0)}%`}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/**
 * The CPU-time speedup beside the wall-time one, the label of a CPU-time estimate (the host was too
 * busy for wall time), and how many disturbed pairs were discarded.
 */
function TimingBasis({ measure }: { measure: Measure }) {
  const e = measure.estimate;
  const cpu = measure.cpuTimeEstimate;
  const d = measure.disturbance;
  // No estimate: the host was too busy, and the CPU-time figure kept for the record is no result.
  if (!e || (!cpu && !d)) return null;
  return (
    <p className="small" data-testid="timing-basis">
      {e?.basis === 'cpu-time' ? (
        <span className="badge warn sentence">
          CPU-time estimate: the host was too busy for wall-clock timing
        </span>
      ) : (
        cpu && (
          <>
            CPU-time speedup{' '}
            <strong>{formatSpeedupInterval(cpu.speedup, cpu.ciLow, cpu.ciHigh)}</strong> (user + sys
            of the same pairs)
          </>
        )
      )}
      {d && (
        <span className="muted">
          {' · '}
          {d.discardedPairs === 0
            ? 'no pair was disturbed'
            : `${d.discardedPairs} disturbed pair${d.discardedPairs === 1 ? '' : 's'} discarded and timed again`}
        </span>
      )}
      {measure.session && (
        <span className="muted" data-testid="measure-session">
          {' · '}
          {describeMeasureSession(measure.session)}
        </span>
      )}
    </p>
  );
}

export function Measurement({ target, measure }: { target: string; measure: Measure }) {
  const e = measure.estimate;
  const runs = runsChartData(measure.runs);
  return (
    <div>
      <h3>Speedup</h3>
      {e ? (
        <p className="speedup">
          <strong data-testid={`speedup-${target}`} style={{ fontSize: '1.5rem' }}>
            {formatSpeedupInterval(e.speedup, e.ciLow, e.ciHigh)}
          </strong>
          <br />
          <span className="small muted">
            {formatConfidence(e.confidence)} interval {e.ciLow.toFixed(2)}–{e.ciHigh.toFixed(2)}{' '}
            from {e.pairs} pairs; {stopReasonText(e.stopReason)}.
            {e.hostDrift && <> Note: {describeHostDrift(e.hostDrift)}.</>}
          </span>
        </p>
      ) : (
        <p className="muted">No speedup estimate was made.</p>
      )}
      <TimingBasis measure={measure} />
      <div className="table-wrap">
        <table aria-label="Baseline and solution wall times">
          <thead>
            <tr>
              <th>wall time</th>
              <th className="num">runs</th>
              <th className="num">min</th>
              <th className="num">median</th>
              <th className="num">max</th>
              <th className="num">CV</th>
            </tr>
          </thead>
          <tbody>
            <TimeRow side="baseline" s={measure.baseline} />
            <TimeRow side="solution" s={measure.solution} />
          </tbody>
        </table>
      </div>
      <p className="small muted">
        Hidden input of {formatBytes(measure.inputBytes)}
        {measure.cpu !== null && `, runs pinned to CPU ${measure.cpu}`}.
      </p>
      {runs.length > 0 && <RunsChart data={runs} label={`Wall time per run on ${target}`} />}
      {measure.counters.length > 0 && <CountersTable counters={measure.counters} />}
    </div>
  );
}

// Where the time goes: cachegrind's per-function counts (noise-free) and perf's sampled call stacks
// of one timed-input run, baseline and solution side by side. Both name the contestant's functions:
// the page showing them is visible only to whoever may read the patch.
import type { Deterministic, FunctionCost, Hotspots, SampledProfile } from '../../../contracts';
import {
  compareHotspots,
  instructionShare,
  shortFunctionName,
} from '../../../lib/core/profile/compare-hotspots';
import { formatCount } from '../../../lib/server/web/format';
import { BaselineSolutionTable, RatioCell } from './baseline-solution-table';
import { FlameGraph } from './flame-graph';

function FunctionName({ name }: { name: string }) {
  return (
    // At least 14em wide: on a phone the table scrolls in its box rather than wrapping a name
    // one letter per line.
    <span
      className="mono"
      title={name}
      style={{ display: 'inline-block', minWidth: '14em', overflowWrap: 'anywhere' }}
    >
      {shortFunctionName(name)}
    </span>
  );
}

function percent(x: number): string {
  return `${(100 * x).toFixed(1)}%`;
}

/** A function's instructions on one side and its share of that side's; "–" when not in its top. */
function InstructionsCell({ cost, side }: { cost: FunctionCost | null; side: Hotspots }) {
  return (
    <td className="num">
      {cost ? (
        <>
          {formatCount(cost.instructions)}{' '}
          <span className="muted small">{percent(instructionShare(cost, side))}</span>
        </>
      ) : (
        '–'
      )}
    </td>
  );
}

function SideTable({ side, testId }: { side: Hotspots; testId: string }) {
  return (
    <div className="table-wrap">
      <table data-testid={testId}>
        <thead>
          <tr>
            <th>function</th>
            <th className="num">instructions</th>
            <th className="num">share</th>
            <th className="num">L1 data misses</th>
            <th className="num">LL data misses</th>
            <th className="num">branch mispredictions</th>
          </tr>
        </thead>
        <tbody>
          {side.functions.map((f) => (
            <tr key={f.name}>
              <td>
                <FunctionName name={f.name} />
              </td>
              <td className="num">{formatCount(f.instructions)}</td>
              <td className="num">{percent(instructionShare(f, side))}</td>
              <td className="num">{formatCount(f.l1DataMisses)}</td>
              <td className="num">{formatCount(f.llDataMisses)}</td>
              <td className="num">{formatCount(f.branchMispredictions)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function FunctionHotspots({ deterministic }: { deterministic: Deterministic }) {
  const hotspots = deterministic.hotspots;
  if (!hotspots) return <p className="small muted">This judging kept no per-function counts.</p>;
  const rows = compareHotspots(hotspots.baseline, hotspots.solution);
  return (
    <>
      <p className="small muted">
        From the same cachegrind runs, per function. Code the compiler inlined counts toward the
        function it was inlined into, as cachegrind attributes it; names are demangled.
      </p>
      <h4>Compared with the baseline</h4>
      <BaselineSolutionTable measure="function" testId="hotspots-compare">
        {rows.map((r) => (
          <tr key={r.name}>
            <td>
              <FunctionName name={r.name} />
            </td>
            <InstructionsCell cost={r.baseline} side={hotspots.baseline} />
            <InstructionsCell cost={r.solution} side={hotspots.solution} />
            <RatioCell ratio={r.ratio} />
          </tr>
        ))}
      </BaselineSolutionTable>
      <p className="small muted">
        Instructions per function; “–”: not among that side’s top{' '}
        {hotspots.solution.functions.length} functions. Ratio: solution / baseline.
      </p>
      {(['solution', 'baseline'] as const).map((name) => (
        <details key={name}>
          <summary>
            {name === 'solution' ? 'Solution’s' : 'Baseline’s'} top functions (
            {hotspots[name].functions.length} of {hotspots[name].functionCount})
          </summary>
          <SideTable side={hotspots[name]} testId={`hotspots-${name}`} />
        </details>
      ))}
    </>
  );
}

export function SampledProfiles({
  sampled,
  target,
  downloadHref,
}: {
  sampled: { baseline: SampledProfile; solution: SampledProfile };
  target: string;
  downloadHref: string;
}) {
  const { solution, baseline } = sampled;
  return (
    <>
      <p className="small muted">
        <span className="mono">perf record</span> of one run of the timed input each side (
        {solution.event}, {solution.frequencyHz} Hz, call stacks by DWARF unwinding), taken from
        outside the sandbox. Callers on top; a box’s width is its share of the samples. Tap or hover
        a box for its full name.{' '}
        <a href={downloadHref} download data-testid="speedscope-download">
          Download both for speedscope
        </a>{' '}
        (open it at speedscope.app).
      </p>
      <h4>Solution ({formatCount(solution.samples)} samples)</h4>
      <FlameGraph profile={solution} label={`Flame graph of the solution on ${target}`} />
      <h4>Baseline ({formatCount(baseline.samples)} samples)</h4>
      <FlameGraph profile={baseline} label={`Flame graph of the baseline on ${target}`} />
    </>
  );
}

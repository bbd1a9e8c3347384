// The test stage: failed cases first, each with its first differing lines (expected vs got), then
// every case in a collapsed table.
import type { TestCaseResult, TestOutcome } from '../../../contracts';
import { lineDifference } from '../../../lib/core/challenge/first-difference';
import { formatMs } from '../../../lib/server/web/format';
import { VisibleText } from './visible-text';

const OUTCOME: Record<TestOutcome, { word: string; tone: string }> = {
  passed: { word: 'passed', tone: 'ok' },
  'wrong-answer': { word: 'wrong answer', tone: 'bad' },
  'runtime-error': { word: 'runtime error', tone: 'bad' },
  'time-limit': { word: 'time limit', tone: 'bad' },
  'memory-limit': { word: 'memory limit', tone: 'bad' },
  'output-limit': { word: 'output limit', tone: 'bad' },
  skipped: { word: 'skipped', tone: '' },
};

function Outcome({ outcome }: { outcome: TestOutcome }) {
  const o = OUTCOME[outcome];
  return <span className={`badge ${o.tone}`}>{o.word}</span>;
}

// Output lines keep their tabs (word<TAB>count) and wrap only when longer than the cell.
const OUTPUT_CELL = { whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', tabSize: 4 } as const;

function DiffExcerpt({ c, testId }: { c: TestCaseResult; testId: string }) {
  return (
    <div className="table-wrap" data-testid={testId}>
      {/* aria-label, not an sr-only caption: its absolute box would widen the page on phones. */}
      <table className="diff-excerpt" aria-label={`First differing lines of ${c.group}/${c.name}`}>
        <thead>
          <tr>
            <th className="num" style={{ width: '1%' }}>
              line
            </th>
            <th style={{ width: '50%' }}>expected</th>
            <th style={{ width: '50%' }}>got</th>
          </tr>
        </thead>
        <tbody>
          {c.diff.map((d) => {
            // Long lines show the window around their first difference, located in bytes.
            const shown = lineDifference(d);
            return (
              <tr key={d.line}>
                <td className="num">{d.line}</td>
                <td className="mono" style={OUTPUT_CELL}>
                  <VisibleText text={shown.expected} escaped={d.escaped ?? false} />
                  {shown.description && (
                    <div className="small muted" data-testid="first-difference">
                      {shown.description}
                    </div>
                  )}
                </td>
                <td className="mono" style={OUTPUT_CELL}>
                  <VisibleText text={shown.got} escaped={d.escaped ?? false} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

export function TestResults({ cases }: { cases: TestCaseResult[] }) {
  const failed = cases.filter((c) => c.outcome !== 'passed' && c.outcome !== 'skipped');
  const passed = cases.filter((c) => c.outcome === 'passed').length;
  const skipped = cases.filter((c) => c.outcome === 'skipped');
  const advisory = failed.filter((c) => !c.required);
  let diffShown = false;
  return (
    <div>
      <h3>Tests</h3>
      <p className="small">
        {passed} of {cases.length} passed
        {skipped.length > 0 && (
          <>
            ; {skipped.length} not run after an earlier failure:{' '}
            <span className="mono" data-testid="skipped-cases" style={{ overflowWrap: 'anywhere' }}>
              {skipped.map((c) => `${c.group}/${c.name}`).join(', ')}
            </span>
          </>
        )}
        .
      </p>
      {advisory.length > 0 && (
        <p className="notice warn small" data-testid="advisory-failures">
          {advisory.length} optional test{advisory.length === 1 ? '' : 's'} failed (
          {advisory.map((c) => `${c.group}/${c.name}`).join(', ')}): they do not change the verdict,
          but the output is not right on {advisory.length === 1 ? 'it' : 'them'}.
        </p>
      )}
      {failed.map((c) => {
        const testId = c.diff.length > 0 && !diffShown ? 'diff-excerpt' : 'diff-excerpt-more';
        if (c.diff.length > 0) diffShown = true;
        return (
          <div key={`${c.group}/${c.name}`} className="failed-case">
            <p className="row">
              <Outcome outcome={c.outcome} />
              <span className="mono" style={{ overflowWrap: 'anywhere' }}>
                {c.group}/{c.name}
              </span>
              {!c.required && <span className="badge">optional</span>}
            </p>
            {c.message && (
              <p className="small" style={{ overflowWrap: 'anywhere' }}>
                {c.message}
              </p>
            )}
            {c.diff.length > 0 && <DiffExcerpt c={c} testId={testId} />}
          </div>
        );
      })}
      <AllTests cases={cases} />
    </div>
  );
}

/** Every test with its group, outcome and time, folded. */
function AllTests({ cases }: { cases: TestCaseResult[] }) {
  return (
    <details>
      <summary>All {cases.length} tests</summary>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th>group</th>
              <th>test</th>
              <th>outcome</th>
              <th className="num">time</th>
            </tr>
          </thead>
          <tbody>
            {cases.map((c) => (
              <tr key={`${c.group}/${c.name}`}>
                <td>{c.group}</td>
                <td className="mono" style={{ overflowWrap: 'anywhere' }}>
                  {c.name}
                  {!c.required && <span className="muted"> (optional)</span>}
                </td>
                <td>
                  <Outcome outcome={c.outcome} />
                </td>
                <td className="num">{formatMs(c.wallMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}

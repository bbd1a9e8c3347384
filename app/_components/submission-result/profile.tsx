// The profile stage: Top-Down level 1, memory over time and cachegrind's instruction counts; a part
// the host could not produce is replaced by the judge's note saying why.
import type { CachegrindCounts, ProfileStage } from '../../../contracts';
import { formatBytes, formatCount, formatSpeedup } from '../../../lib/web/format';
import { memoryChartData, topdownChartData } from '../../../lib/web/submission-result';
import { MemoryChart } from '../charts/memory-chart';
import { TopdownChart } from '../charts/topdown-chart';

const CACHEGRIND_ROWS: { key: keyof CachegrindCounts; label: string }[] = [
  { key: 'instructions', label: 'instructions' },
  { key: 'dataReads', label: 'data reads' },
  { key: 'dataWrites', label: 'data writes' },
  { key: 'l1InstructionMisses', label: 'L1 instruction misses' },
  { key: 'l1DataMisses', label: 'L1 data misses' },
  { key: 'llMisses', label: 'last-level misses' },
  { key: 'branches', label: 'branches' },
  { key: 'branchMispredictions', label: 'branch mispredictions' },
  { key: 'estimatedCycles', label: 'estimated cycles' },
];

export function Profile({ target, profile }: { target: string; profile: ProfileStage }) {
  const d = profile.deterministic;
  return (
    <div>
      <h3>Top-Down</h3>
      {profile.topdown ? (
        <>
          <TopdownChart
            data={topdownChartData(profile.topdown)}
            label={`Top-Down level 1 on ${target}`}
          />
          <p className="small muted">
            Share of pipeline slots (perf metric group {profile.topdown.solution.source}).
          </p>
        </>
      ) : (
        <p className="small">
          <span className="badge warn">unsupported</span>{' '}
          {profile.notes.find((n) => /top-?down/i.test(n)) ?? 'No Top-Down figures for this host.'}
        </p>
      )}

      <h3>Memory over time</h3>
      {profile.memory ? (
        <>
          <MemoryChart
            baseline={memoryChartData(profile.memory.baseline)}
            solution={memoryChartData(profile.memory.solution)}
            label={`Resident memory over time on ${target}`}
          />
          <p className="small">
            Peak RSS: baseline {formatBytes(profile.memory.baseline.peaks.rssBytes)}, solution{' '}
            {formatBytes(profile.memory.solution.peaks.rssBytes)}; huge pages in use at peak:{' '}
            {formatBytes(profile.memory.solution.peaks.thpBytes)}.
          </p>
        </>
      ) : (
        <p className="small muted">
          {profile.notes.find((n) => /memory/i.test(n)) ?? 'No memory profile was taken.'}
        </p>
      )}

      <h3>Instruction speedup</h3>
      {d ? (
        <>
          <p>
            <strong>{formatSpeedup(d.instructionSpeedup)}</strong>{' '}
            <span className="small muted">
              fewer instructions (cachegrind, noise-free) on a {formatBytes(d.inputBytes)} input,
              built with <span className="mono">{d.flags.join(' ')}</span>
            </span>
          </p>
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>cachegrind</th>
                  <th className="num">baseline</th>
                  <th className="num">solution</th>
                  <th className="num">ratio</th>
                </tr>
              </thead>
              <tbody>
                {CACHEGRIND_ROWS.map((r) => (
                  <tr key={r.key}>
                    <td>{r.label}</td>
                    <td className="num">{formatCount(d.baseline[r.key])}</td>
                    <td className="num">{formatCount(d.solution[r.key])}</td>
                    <td className="num">
                      {d.baseline[r.key] > 0
                        ? (d.solution[r.key] / d.baseline[r.key]).toFixed(3)
                        : '–'}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : (
        <p className="small muted">
          {profile.notes.find((n) => /cachegrind|valgrind|instruction/i.test(n)) ??
            'No cachegrind run for this judging.'}
        </p>
      )}
      {profile.notes.length > 0 && (
        <details>
          <summary className="small">Profile notes ({profile.notes.length})</summary>
          <ul className="small">
            {profile.notes.map((n, i) => (
              <li key={i}>{n}</li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}

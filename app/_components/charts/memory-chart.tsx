'use client';
// Resident memory over time in the untimed profile run, baseline and solution on one time axis
// (each side has its own sampling times, so each line carries its own points).
import {
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { SIDE_COLOURS } from './side-colours';
import { formatAxisMs } from '../../../lib/server/web/format';
import type { MemoryPoint } from '../../../lib/server/web/submission-result';

const mib = (v: unknown) => (typeof v === 'number' ? `${v.toFixed(v >= 100 ? 0 : 1)} MiB` : '–');
const t = formatAxisMs;

export function MemoryChart({
  baseline,
  solution,
  label,
}: {
  baseline: MemoryPoint[];
  solution: MemoryPoint[];
  label: string;
}) {
  return (
    <figure className="chart" aria-label={label} style={{ margin: 0 }}>
      <ResponsiveContainer width="100%" height={240}>
        <LineChart margin={{ top: 8, right: 8, bottom: 8, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e2e0da" />
          <XAxis dataKey="tMs" type="number" domain={[0, 'dataMax']} tickFormatter={t} />
          <YAxis tickFormatter={mib} width={64} domain={[0, 'auto']} tickCount={5} />
          <Tooltip formatter={(v) => mib(v)} labelFormatter={(l) => t(l)} />
          <Legend />
          <Line
            data={baseline}
            dataKey="rssMiB"
            name="baseline RSS"
            stroke={SIDE_COLOURS.baseline}
            dot={false}
            isAnimationActive={false}
          />
          <Line
            data={solution}
            dataKey="rssMiB"
            name="solution RSS"
            stroke={SIDE_COLOURS.solution}
            dot={false}
            isAnimationActive={false}
          />
        </LineChart>
      </ResponsiveContainer>
      <figcaption className="small muted">
        Resident set size over time in the untimed profile run.
      </figcaption>
    </figure>
  );
}

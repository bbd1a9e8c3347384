'use client';
// Wall time of every timed run, baseline and solution, over the pair number: noise, drift and
// outliers show at a glance. Fed the small array of lib/server/web/submission-result.ts runsChartData.
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
import { formatAxisMs, formatMs } from '../../../lib/server/web/format';
import type { RunPoint } from '../../../lib/server/web/submission-result';

// Ticks in seconds past a second, one decimal at most: the axis fits a 375 px phone.
const ms = (v: unknown) => (typeof v === 'number' ? formatMs(v) : '–');

export function RunsChart({ data, label }: { data: RunPoint[]; label: string }) {
  return (
    <figure className="chart" aria-label={label} style={{ margin: 0 }}>
      <ResponsiveContainer width="100%" height={240}>
        <LineChart data={data} margin={{ top: 8, right: 8, bottom: 8, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e2e0da" />
          <XAxis
            dataKey="pair"
            type="number"
            domain={['dataMin', 'dataMax']}
            allowDecimals={false}
            label={{ value: 'pair', position: 'insideBottomRight', offset: -4 }}
          />
          <YAxis tickFormatter={formatAxisMs} width={52} domain={[0, 'auto']} tickCount={5} />
          <Tooltip formatter={(v) => ms(v)} labelFormatter={(l) => `pair ${l}`} />
          <Legend />
          <Line
            type="linear"
            dataKey="baseline"
            name="baseline"
            stroke={SIDE_COLOURS.baseline}
            dot={{ r: 3 }}
            isAnimationActive={false}
          />
          <Line
            type="linear"
            dataKey="solution"
            name="solution"
            stroke={SIDE_COLOURS.solution}
            dot={{ r: 3 }}
            isAnimationActive={false}
          />
        </LineChart>
      </ResponsiveContainer>
      <figcaption className="small muted">
        Wall time of each timed run ({data.length} pairs; warm-ups not shown).
      </figcaption>
    </figure>
  );
}

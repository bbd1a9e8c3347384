'use client';
// A contestant's best accepted score over time, one step line per challenge.
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

export interface BestScoreLine {
  name: string;
  points: { t: number; score: number }[];
}

const COLORS = ['#2f5fd0', '#1c7c3c', '#8a5a00', '#b3261e'];
const day = (v: unknown) =>
  typeof v === 'number' ? new Date(v).toISOString().slice(0, 16).replace('T', ' ') : '';

export function BestScoreChart({ lines }: { lines: BestScoreLine[] }) {
  const times = lines.flatMap((l) => l.points.map((p) => p.t));
  // Within two days the hour matters; over a contest of weeks the date does.
  const short = Math.max(...times) - Math.min(...times) < 2 * 86_400_000;
  return (
    <figure className="chart" aria-label="My best score over time" style={{ margin: 0 }}>
      <ResponsiveContainer width="100%" height={240}>
        <LineChart margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e2e0da" />
          <XAxis
            dataKey="t"
            type="number"
            scale="time"
            domain={['dataMin', 'dataMax']}
            tickFormatter={(v) => (short ? day(v).slice(11, 16) : day(v).slice(5, 10))}
          />
          <YAxis width={56} domain={[0, 'auto']} tickFormatter={(v: number) => v.toFixed(2)} />
          <Tooltip
            labelFormatter={(l) => `${day(l)} UTC`}
            formatter={(v) => (typeof v === 'number' ? v.toFixed(3) : String(v))}
          />
          <Legend />
          {lines.map((line, i) => (
            <Line
              key={line.name}
              data={line.points}
              dataKey="score"
              name={line.name}
              type="stepAfter"
              stroke={COLORS[i % COLORS.length]}
              dot={{ r: 3 }}
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
      <figcaption className="small muted">
        Running maximum of my accepted, not disqualified scores.
      </figcaption>
    </figure>
  );
}

'use client';
// Top-Down level 1 as two stacked bars (baseline, solution): where the pipeline's slots went.
import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import type { TopdownBar } from '../../../lib/server/web/submission-result';

const pct = (v: unknown) => (typeof v === 'number' ? `${v.toFixed(1)}%` : '–');

const PARTS = [
  { key: 'retiring', name: 'Retiring', color: '#1c7c3c' },
  { key: 'badSpeculation', name: 'Bad speculation', color: '#b3261e' },
  { key: 'frontendBound', name: 'Frontend bound', color: '#8a5a00' },
  { key: 'backendBound', name: 'Backend bound', color: '#2f5fd0' },
] as const;

export function TopdownChart({ data, label }: { data: TopdownBar[]; label: string }) {
  return (
    <figure className="chart" aria-label={label} style={{ margin: 0 }}>
      <ResponsiveContainer width="100%" height={170}>
        <BarChart data={data} layout="vertical" margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e2e0da" />
          <XAxis type="number" domain={[0, 100]} tickFormatter={pct} />
          <YAxis type="category" dataKey="side" width={70} />
          <Tooltip formatter={(v) => pct(v)} />
          <Legend />
          {PARTS.map((p) => (
            <Bar
              key={p.key}
              dataKey={p.key}
              name={p.name}
              stackId="slots"
              fill={p.color}
              isAnimationActive={false}
            />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}

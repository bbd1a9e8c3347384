// The table both profile views compare the sides with: a row per measure (a cachegrind count, a
// function), the baseline's and the solution's figure, and the solution / baseline ratio.
import type { ReactNode } from 'react';

export function BaselineSolutionTable({
  measure,
  testId,
  children,
}: {
  /** The first column's head: what each row is. */
  measure: string;
  testId?: string;
  /** The rows, each ending with a RatioCell. */
  children: ReactNode;
}) {
  return (
    <div className="table-wrap">
      <table data-testid={testId}>
        <thead>
          <tr>
            <th>{measure}</th>
            <th className="num">baseline</th>
            <th className="num">solution</th>
            <th className="num">ratio</th>
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** Solution / baseline to three places; "–" where there is none (a side without the figure). */
export function RatioCell({ ratio }: { ratio: number | null }) {
  return <td className="num">{ratio === null ? '–' : ratio.toFixed(3)}</td>;
}

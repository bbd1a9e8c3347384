// The files a patch touches, each with its change and the lines added and removed: the submit
// form's preview before a contestant confirms, and the organizer's diff page.
import { formatCount } from '../../lib/server/web/format';

interface PatchFileRow {
  path: string;
  change: string;
  /** The path a renamed file came from. */
  from?: string;
  additions: number;
  deletions: number;
}

export function PatchFilesTable({
  files,
  review = false,
}: {
  files: readonly PatchFileRow[];
  /** The organizer's review: small paths that wrap anywhere, counts grouped and coloured. */
  review?: boolean;
}) {
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            <th>File</th>
            <th>Change</th>
            <th className="num">Added</th>
            <th className="num">Removed</th>
          </tr>
        </thead>
        <tbody>
          {files.map((f, i) => (
            // With its place: a parsed diff may list one path twice.
            <tr key={`${f.path}-${i}`}>
              <td
                className={review ? 'mono small' : 'mono'}
                style={review ? { overflowWrap: 'anywhere' } : undefined}
              >
                {f.from ? `${f.from} → ` : ''}
                {f.path}
              </td>
              <td>{f.change}</td>
              <td className="num" style={review ? { color: 'var(--ok)' } : undefined}>
                +{review ? formatCount(f.additions) : f.additions}
              </td>
              <td className="num" style={review ? { color: 'var(--bad)' } : undefined}>
                −{review ? formatCount(f.deletions) : f.deletions}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

// A build's compiler output as text, cut server-side to a size a browser holds comfortably, with a
// link to the whole log as plain text.
import { truncateText } from '../../../lib/web/submission-result';
import { formatMs } from '../../../lib/web/format';
import type { BuildResult } from '../../../contracts';

export function BuildLog({
  build,
  fullLogHref,
  open,
}: {
  build: BuildResult;
  fullLogHref: string;
  open: boolean;
}) {
  const log = truncateText(build.log);
  return (
    <details open={open} className="build-log">
      <summary>
        Build log{' '}
        <span className="small muted">
          ({build.ok ? 'built' : 'failed'} in {formatMs(build.durationMs)}
          {build.cached ? ', cached' : ''}; {log.totalChars.toLocaleString('en-US')} characters)
        </span>
      </summary>
      {build.limitExceeded && (
        <p className="notice error">Build limit exceeded: {build.limitExceeded}</p>
      )}
      {log.truncated && (
        <p className="small muted">
          Showing the beginning and the end; {log.omittedChars.toLocaleString('en-US')} characters
          in between are left out. <a href={fullLogHref}>Full log as text</a>.
        </p>
      )}
      {build.log.length === 0 ? (
        <p className="muted small">The compiler printed nothing.</p>
      ) : (
        <pre className="wrap" style={{ maxHeight: '24em' }} tabIndex={0}>
          {log.text}
        </pre>
      )}
      {!log.truncated && build.log.length > 0 && (
        <p className="small">
          <a href={fullLogHref}>Log as plain text</a>
        </p>
      )}
    </details>
  );
}

// A build's compiler output as text, cut server-side to a size a browser holds comfortably, with a
// link to the whole log as plain text. A failed build opens on the compiler's first error; the whole
// log is one click away.
import { firstCompilerError, truncateText } from '../../../lib/server/web/submission-result';
import { formatMs } from '../../../lib/server/web/format';
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
  const error = build.ok ? null : firstCompilerError(build.log);
  // A zero duration means the build never ran (a cached failure, a refused toolchain): no "0.0 ms".
  const took = build.durationMs > 0 ? ` in ${formatMs(build.durationMs)}` : '';
  const excerpt = error && (
    <div className="build-error" data-testid="first-compiler-error">
      <p className="small" style={{ margin: '0.4em 0 0.2em' }}>
        The first error (line {error.line} of the log):
      </p>
      <pre className="wrap" tabIndex={0}>
        {error.text}
      </pre>
    </div>
  );
  return (
    <>
      {open && excerpt}
      <BuildLogDetails
        build={build}
        log={log}
        fullLogHref={fullLogHref}
        // With the first error shown above, the whole log stays closed until asked for.
        open={open && !excerpt}
        took={took}
        title={excerpt && open ? 'Full build log' : 'Build log'}
      />
    </>
  );
}

function BuildLogDetails({
  build,
  log,
  fullLogHref,
  open,
  took,
  title,
}: {
  build: BuildResult;
  log: ReturnType<typeof truncateText>;
  fullLogHref: string;
  open: boolean;
  took: string;
  title: string;
}) {
  return (
    <details open={open} className="build-log">
      <summary>
        {title}{' '}
        <span className="small muted">
          ({build.ok ? 'built' : 'failed'}
          {took}
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

// A patch as a coloured diff (text only), cut after MAX_LINES with a link to the raw text.
const MAX_LINES = 1500;

function lineClass(line: string): string {
  if (line.startsWith('diff --git') || line.startsWith('+++ ') || line.startsWith('--- '))
    return 'file';
  if (line.startsWith('@@')) return 'hunk';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'del';
  return '';
}

export function PatchView({ text, rawHref }: { text: string; rawHref: string }) {
  const lines = text.split('\n');
  const shown = lines.slice(0, MAX_LINES);
  return (
    <>
      <pre className="diff" tabIndex={0} aria-label="Patch">
        {shown.map((line, i) => (
          <div key={i} className={lineClass(line)}>
            {line || '\u00a0'}
          </div>
        ))}
      </pre>
      {lines.length > MAX_LINES && (
        <p className="small muted">
          The first {MAX_LINES.toLocaleString('en-US')} of {lines.length.toLocaleString('en-US')}{' '}
          lines. <a href={rawHref}>The whole patch as text</a>.
        </p>
      )}
    </>
  );
}

'use client';
// Shown when a page fails on the server: the details stay in the server's log.
export default function ErrorPage({ reset }: { error: Error; reset: () => void }) {
  return (
    <div className="card">
      <h1>Something went wrong</h1>
      <p>The page could not be shown. The error was logged; try again in a moment.</p>
      <button type="button" onClick={reset}>
        Try again
      </button>
    </div>
  );
}

'use client';
// Highlights the signed-in contestant's own leaderboard row. The page itself is cached for every
// visitor alike (no session read on the server) and its rows carry an opaque key, never a user id
// (lib/server/web/leaderboard-row-key.ts), so the browser asks for its own key and marks that row.
import { useEffect } from 'react';

/** The key in GET …/leaderboard/own-row's answer (null when signed out). */
function ownRowKey(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const key = (body as { key?: unknown }).key;
  return typeof key === 'string' && /^[\w-]{1,64}$/.test(key) ? key : null;
}

export function OwnRowMarker({ slug }: { slug: string }) {
  useEffect(() => {
    const controller = new AbortController();
    fetch(`/challenges/${encodeURIComponent(slug)}/leaderboard/own-row`, {
      signal: controller.signal,
      cache: 'no-store',
    })
      .then((r) => (r.ok ? r.json() : null))
      .then((body: unknown) => {
        const key = ownRowKey(body);
        if (!key) return;
        for (const row of document.querySelectorAll<HTMLTableRowElement>('tr[data-row]'))
          if (row.dataset.row === key) {
            row.classList.add('own-row');
            row.setAttribute('aria-current', 'true');
            row.title = 'Your row';
          }
      })
      .catch(() => {
        // Signed out, offline or aborted: nothing to mark.
      });
    return () => controller.abort();
  }, [slug]);
  return null;
}

'use client';
// Highlights the signed-in contestant's own leaderboard row. The page itself is cached for every
// visitor alike (no session read on the server), so the browser asks who it is and marks the row.
import { useEffect } from 'react';

/** The user id in better-auth's GET /api/auth/get-session answer (null when signed out). */
function sessionUserId(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const user = (body as { user?: { id?: unknown } }).user;
  return typeof user?.id === 'string' && user.id.length <= 64 ? user.id : null;
}

export function OwnRowMarker() {
  useEffect(() => {
    const controller = new AbortController();
    fetch('/api/auth/get-session', { signal: controller.signal, cache: 'no-store' })
      .then((r) => (r.ok ? r.json() : null))
      .then((body: unknown) => {
        const id = sessionUserId(body);
        if (!id) return;
        for (const row of document.querySelectorAll<HTMLTableRowElement>('tr[data-user]'))
          if (row.dataset.user === id) {
            row.classList.add('own-row');
            row.setAttribute('aria-current', 'true');
            row.title = 'Your row';
          }
      })
      .catch(() => {
        // Signed out, offline or aborted: nothing to mark.
      });
    return () => controller.abort();
  }, []);
  return null;
}

'use client';
// Time left until the deadline, ticking every second; the server renders the deadline itself so the
// page reads correctly before (or without) JavaScript.
import { useEffect, useState } from 'react';

function left(ms: number): string {
  if (ms <= 0) return 'closed';
  const s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return d > 0 ? `${d} d ${h} h ${m} min left` : `${h} h ${m} min ${sec} s left`;
}

export function Countdown({ deadline }: { deadline: string }) {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  if (now === null) return null;
  return (
    <span data-testid="countdown" aria-live="off">
      {left(new Date(deadline).getTime() - now)}
    </span>
  );
}

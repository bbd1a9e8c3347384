'use client';
// Re-renders the page's server parts every few seconds while it is visible (a running final
// evaluation's progress): router.refresh keeps the document, its scroll and any open dialog.
import { useRouter } from 'next/navigation';
import { useEffect } from 'react';

export function AutoRefresh({ seconds }: { seconds: number }) {
  const router = useRouter();
  useEffect(() => {
    const timer = setInterval(() => {
      // A dialog being filled in must not lose its text: skip while one is open.
      if (document.visibilityState === 'visible' && !document.querySelector('dialog[open]'))
        router.refresh();
    }, seconds * 1000);
    return () => clearInterval(timer);
  }, [router, seconds]);
  return null;
}

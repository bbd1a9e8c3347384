// The console's own navigation, above every organizer page.
import Link from 'next/link';

const LINKS = [
  { href: '/organizer', label: 'Overview' },
  { href: '/organizer/submissions', label: 'Submissions' },
  { href: '/organizer/audit', label: 'Audit log' },
] as const;

export function ConsoleNav({ current }: { current: (typeof LINKS)[number]['href'] | null }) {
  return (
    <nav aria-label="Organizer console" className="row small console-nav">
      {LINKS.map((l) => (
        <Link key={l.href} href={l.href} aria-current={l.href === current ? 'page' : undefined}>
          {l.label}
        </Link>
      ))}
    </nav>
  );
}

// The console's own navigation, above every organizer page; on a challenge's pages also that
// challenge's own (settings, final evaluation).
import Link from 'next/link';

const LINKS = [
  { href: '/organizer', label: 'Overview' },
  { href: '/organizer/submissions', label: 'Submissions' },
  { href: '/organizer/audit', label: 'Audit log' },
] as const;

export function ConsoleNav({
  current,
  challenge,
}: {
  current: (typeof LINKS)[number]['href'] | null;
  /** On a challenge's console pages: its slug and which of its pages this is. */
  challenge?: { slug: string; page: 'settings' | 'final' };
}) {
  const own = challenge
    ? [
        {
          href: `/organizer/challenges/${challenge.slug}/settings`,
          label: `${challenge.slug}: settings`,
          current: challenge.page === 'settings',
        },
        {
          href: `/organizer/challenges/${challenge.slug}/final`,
          label: `${challenge.slug}: final evaluation`,
          current: challenge.page === 'final',
        },
      ]
    : [];
  return (
    <nav aria-label="Organizer console" className="row small console-nav">
      {LINKS.map((l) => (
        <Link key={l.href} href={l.href} aria-current={l.href === current ? 'page' : undefined}>
          {l.label}
        </Link>
      ))}
      {own.map((l) => (
        <Link key={l.href} href={l.href} aria-current={l.current ? 'page' : undefined}>
          {l.label}
        </Link>
      ))}
    </nav>
  );
}

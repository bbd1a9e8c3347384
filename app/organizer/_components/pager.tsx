// The console's keyset pages (submissions, audit log): back to the first page once past it, on
// while there is a next one.
import Link from 'next/link';

interface PageLink {
  href: string;
  label: string;
}

export function Pager({ first, next }: { first: PageLink | null; next: PageLink | null }) {
  return (
    <nav className="row" aria-label="Pages">
      {first && (
        <Link href={first.href} className="btn secondary">
          {first.label}
        </Link>
      )}
      {next && (
        <Link href={next.href} className="btn secondary">
          {next.label}
        </Link>
      )}
    </nav>
  );
}

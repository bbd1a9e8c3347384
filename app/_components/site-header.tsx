// Navigation for everyone; the signed-in part (own pages, console, account) is filled in by the
// browser from the session, so public pages stay static and can be served from the cache.
import Link from 'next/link';
import { AccountNav } from './account-nav';
import { DEFAULT_CHALLENGE } from '../../lib/core/challenge/default-challenge';

/** The account menu links to the default contest's pages; the home page lists every challenge. */
export function SiteHeader() {
  return (
    <header className="site-header">
      <div className="bar">
        <Link href="/" className="brand">
          perfjudge
        </Link>
        <AccountNav challenge={DEFAULT_CHALLENGE} />
      </div>
    </header>
  );
}

'use client';
// The header's links: public ones at once, the contestant's and organizer's once the session is
// known, and the account (name, sign out) or the sign-in links.
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { authClient } from '../../lib/server/auth/auth-client';

export function AccountNav({ challenge }: { challenge: string }) {
  const router = useRouter();
  const { data: session, isPending } = authClient.useSession();
  const user = session?.user as { name: string; email: string; role?: string } | undefined;
  return (
    <>
      <nav aria-label="Main">
        <Link href={`/challenges/${challenge}`}>Challenge</Link>
        <Link href={`/challenges/${challenge}/leaderboard`}>Leaderboard</Link>
        {user && <Link href={`/challenges/${challenge}/submit`}>Submit</Link>}
        {user && <Link href="/me/submissions">My submissions</Link>}
        {user?.role === 'ORGANIZER' && <Link href="/organizer">Organizer</Link>}
      </nav>
      <div className="account" aria-busy={isPending}>
        {user ? (
          <>
            <Link href="/account" className="name" title={user.email}>
              {user.name}
            </Link>
            <button
              type="button"
              className="secondary small"
              style={{ color: '#dfe6ff', borderColor: '#5c6a94', padding: '0.15em 0.7em' }}
              onClick={async () => {
                await authClient.signOut();
                router.push('/');
                router.refresh();
              }}
            >
              Sign out
            </button>
          </>
        ) : isPending ? null : (
          <>
            <Link href="/sign-in">Sign in</Link>
            <Link href="/sign-up">Sign up</Link>
          </>
        )}
      </div>
    </>
  );
}

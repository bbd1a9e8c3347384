// Shown for an unknown address, challenge or submission (notFound()).
import Link from 'next/link';

export default function NotFound() {
  return (
    <div className="card">
      <h1>Not found</h1>
      <p>There is nothing at this address.</p>
      <Link href="/">Back to the contests</Link>
    </div>
  );
}

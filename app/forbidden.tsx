// Shown when a signed-in user opens a page that is not theirs (forbidden()).
import Link from 'next/link';

export default function Forbidden() {
  return (
    <div className="card">
      <h1>Not allowed</h1>
      <p>This page belongs to someone else, or to the organizers.</p>
      <Link href="/">Back to the contests</Link>
    </div>
  );
}

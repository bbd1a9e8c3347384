// Create a contestant account.
import type { Metadata } from 'next';
import { Suspense } from 'react';
import { AccountForm } from '../_components/account-form';

export const metadata: Metadata = { title: 'Sign up' };

export default function SignUpPage() {
  return (
    <>
      <h1>Create an account</h1>
      <p className="muted">
        Contestants submit patches from the web or the command line; their best accepted submission
        is their row on the leaderboard.
      </p>
      <Suspense>
        <AccountForm mode="sign-up" />
      </Suspense>
    </>
  );
}

// Sign in with e-mail and password.
import type { Metadata } from 'next';
import { Suspense } from 'react';
import { AccountForm } from '../_components/account-form';

export const metadata: Metadata = { title: 'Sign in' };

export default function SignInPage() {
  return (
    <>
      <h1>Sign in</h1>
      <Suspense>
        <AccountForm mode="sign-in" />
      </Suspense>
    </>
  );
}

// The browser side of Better Auth (sign-up, sign-in with its second step, sign-out, two-factor
// set-up, password change). Same origin as the pages.
import { createAuthClient } from 'better-auth/react';
import { twoFactorClient } from 'better-auth/client/plugins';

export const authClient = createAuthClient({ plugins: [twoFactorClient()] });

// The browser side of Better Auth (sign-up, sign-in, sign-out forms). Same origin as the pages.
import { createAuthClient } from 'better-auth/react';

export const authClient = createAuthClient();

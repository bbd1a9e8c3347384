// How long a password may be: Better Auth enforces it on the server (lib/server/auth/auth.ts), the sign-up
// form in the browser (lib/server/web/account-forms.ts). Apart from password.ts, whose node:crypto must not
// reach the browser's bundle.
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 256;

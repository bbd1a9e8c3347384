// What the sign-up and sign-in forms accept, checked in the browser and again by Better Auth's own
// validation on the server (the same lengths: lib/core/access/password-limits.ts).
import { z } from 'zod';
import { PASSWORD_MAX, PASSWORD_MIN } from '../../core/access/password-limits';

export const signUpSchema = z.object({
  name: z
    .string()
    .trim()
    .min(1, 'Enter the name shown on the leaderboard')
    .max(80, 'At most 80 characters'),
  email: z.email('Enter an e-mail address').max(254),
  password: z
    .string()
    .min(PASSWORD_MIN, `At least ${PASSWORD_MIN} characters`)
    .max(PASSWORD_MAX, `At most ${PASSWORD_MAX} characters`),
});

export const signInSchema = z.object({
  email: z.email('Enter an e-mail address').max(254),
  password: z.string().min(1, 'Enter your password').max(PASSWORD_MAX),
});

/** Field → first message, for showing next to each input. */
export { fieldErrors } from '../../../contracts/zod-issues';

/** Only same-site paths after sign-in: an open redirect would let a link send people elsewhere. */
export function safeNextPath(next: string | null | undefined): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  return next;
}

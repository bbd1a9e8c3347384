// Server actions through one wrapper: it checks who is asking (signed in, organizer when required)
// and parses the input with zod, so an action body only ever sees valid input from an allowed user.
import { AppError } from '../../../contracts';
import 'server-only';
import { z } from 'zod';
import { fieldErrors } from '../../../contracts/zod-issues';
import { currentUser, type SessionUser } from './session';

export type ActionResult<T> =
  { ok: true; data: T } | { ok: false; error: string; fieldErrors?: Record<string, string> };

export interface ActionOptions {
  role?: 'ORGANIZER';
}

/** An error whose message is for the user (anything else becomes a generic message). */
export class ActionError extends AppError {
  override name = 'ActionError';
  readonly code = 'refused' as const;
}

export function safeAction<S extends z.ZodType, T>(
  schema: S,
  body: (input: z.infer<S>, user: SessionUser) => Promise<T>,
  options: ActionOptions = {},
): (input: unknown) => Promise<ActionResult<T>> {
  return async (input: unknown) => {
    const user = await currentUser();
    if (!user) return { ok: false, error: 'Sign in first.' };
    if (options.role === 'ORGANIZER' && user.needsTwoFactor)
      return { ok: false, error: 'Turn on two-factor sign-in on your account page first.' };
    if (options.role === 'ORGANIZER' && user.role !== 'ORGANIZER')
      return { ok: false, error: 'Only organizers may do this.' };
    const parsed = schema.safeParse(input);
    if (!parsed.success) {
      return {
        ok: false,
        error: 'Some fields need attention.',
        fieldErrors: fieldErrors(parsed.error),
      };
    }
    try {
      return { ok: true, data: await body(parsed.data, user) };
    } catch (error) {
      // A refusal, a missing record, a conflict: the user's to read (contracts/errors.ts says whose
      // fault each code is); anything else is ours, logged, and told in general words.
      if (error instanceof AppError && error.fault === 'user')
        return { ok: false, error: error.message };
      console.error('web: action failed:', error);
      return { ok: false, error: 'The server failed; the error was logged. Try again.' };
    }
  };
}

// `npm run account:reset-two-factor -- EMAIL`: turns off two-factor sign-in for an account whose
// owner lost both the authenticator app and the backup codes (docs/security.md, "Recovery").
// Run by the operator, on a machine with DATABASE_URL; the web app has no such button.
import { z } from 'zod';
import { env } from '../lib/core/config/env';
import { db } from '../lib/server/db/client';
import { resetTwoFactor } from '../lib/server/db/accounts/reset-two-factor';

try {
  const email = z.email('give the account e-mail: npm run account:reset-two-factor -- EMAIL');
  const parsed = email.safeParse(process.argv[2]);
  if (!parsed.success) throw new Error(parsed.error.issues[0]!.message);
  if (!env().DATABASE_URL) throw new Error('DATABASE_URL is not set');
  const reset = await resetTwoFactor(db(), parsed.data);
  if (!reset) throw new Error(`no account has the e-mail ${parsed.data}`);
  console.log(
    `two-factor sign-in is off for ${parsed.data}; its sessions ended. It signs in with its password now.`,
  );
  process.exit(0);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}

// Better Auth's endpoints: sign-up, sign-in, sign-out, session (lib/server/auth/auth.ts).
import { toNextJsHandler } from 'better-auth/next-js';
import { auth } from '../../../../lib/server/auth/auth';
import { withTrustedClientAddress } from '../../../../lib/core/net/client-address';

export async function GET(request: Request): Promise<Response> {
  return toNextJsHandler(auth()).GET(withTrustedClientAddress(request));
}

export async function POST(request: Request): Promise<Response> {
  return toNextJsHandler(auth()).POST(withTrustedClientAddress(request));
}

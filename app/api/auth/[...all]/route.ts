// Better Auth's endpoints: sign-up, sign-in, sign-out, session (lib/auth/auth.ts).
import { toNextJsHandler } from 'better-auth/next-js';
import { auth } from '../../../../lib/auth/auth';

export async function GET(request: Request): Promise<Response> {
  return toNextJsHandler(auth()).GET(request);
}

export async function POST(request: Request): Promise<Response> {
  return toNextJsHandler(auth()).POST(request);
}

// POST /api/submissions: submit a patch with an API token (what `perfjudge submit` calls) or a
// browser session. JSON { challenge, patch } → 201 { submissionId, status, url }; errors as
// { error: { message, code, reason? } } with 401, 403 (closed), 404, 413, 422 (rejected), 429.
import { env } from '../../../lib/core/config/env';
import { HttpError, httpStatus, jsonError, route } from '../../../lib/server/web/api-errors';
import { requestUser } from '../../../lib/server/web/session';
import { submitForUser, submitInputSchema } from '../../../lib/server/web/submit-for-user';

export const dynamic = 'force-dynamic';

/** JSON with a 4 MiB patch escaped at worst twice its size, plus the envelope. */
const MAX_BODY_BYTES = 9 * 1024 * 1024;

async function readJson(request: Request): Promise<unknown> {
  const type = request.headers.get('content-type') ?? '';
  if (!type.toLowerCase().startsWith('application/json'))
    throw new HttpError('unsupported-media-type', 'Send JSON: Content-Type: application/json');
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > MAX_BODY_BYTES) throw new HttpError('too-large', 'The request body is too large');
  const text = await request.text();
  if (Buffer.byteLength(text) > MAX_BODY_BYTES)
    throw new HttpError('too-large', 'The request body is too large');
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError('invalid-json', 'The body is not valid JSON');
  }
}

export const POST = route(async (request: Request) => {
  const user = await requestUser(request);
  if (!user)
    return jsonError(
      'unauthorized',
      'Sign in or send a valid API token: Authorization: Bearer <token>',
    );
  const input = submitInputSchema.parse(await readJson(request));
  const outcome = await submitForUser(user.id, input);
  if (!outcome.ok)
    return jsonError(
      outcome.code,
      outcome.message,
      {
        reason: outcome.reason,
        // Truthy, not just defined: an empty path is no file to name.
        ...(outcome.file ? { file: outcome.file } : {}),
      },
      outcome.retryAfterSeconds ? { 'retry-after': String(outcome.retryAfterSeconds) } : {},
      httpStatus(outcome.code, outcome.reason),
    );
  const url = new URL(
    `/submissions/${outcome.submissionId}`,
    env().PERFJUDGE_PUBLIC_URL,
  ).toString();
  return Response.json(
    { submissionId: outcome.submissionId, status: 'QUEUED', url },
    { status: 201, headers: { location: url, 'cache-control': 'no-store' } },
  );
});

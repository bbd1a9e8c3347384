// The client side of `POST <server>/api/submissions`, for `perfjudge submit` (api-client.ts makes
// the request and maps its failures):
//   request:  Authorization: Bearer <API token>; JSON { challenge: slug, patch: text }
//   201/202:  { submissionId, status?, url? }
//   401:      bad, revoked or expired token            422: { error: { code?, reason?, message } }
//   413:      patch too large    429: quota reached    5xx: the server's fault
import { z } from 'zod';
import { callApi, parseAnswer, type ApiConnection } from './api-client';

export interface SubmitRequest extends ApiConnection {
  challenge: string;
  patchText: string;
}

const acceptedSchema = z.object({
  submissionId: z.string().min(1),
  status: z.string().optional(),
  url: z.string().optional(),
});
export type SubmitAccepted = z.infer<typeof acceptedSchema>;

export async function postSubmission(request: SubmitRequest): Promise<SubmitAccepted> {
  const { status, body } = await callApi({
    ...request,
    timeoutMs: request.timeoutMs ?? 60_000,
    method: 'POST',
    path: 'submissions',
    body: { challenge: request.challenge, patch: request.patchText },
    hints: {
      401: 'Check --token: it may be mistyped, revoked or expired',
      404: (said) =>
        `not found (404)${said}. Is ${new URL(request.server).origin} a perfjudge server, and does the challenge "${request.challenge}" exist?`,
      422: 'the patch was rejected',
      429: 'too many submissions',
    },
  });
  return parseAnswer(acceptedSchema, body, `a submission (${status} without a submission id)`);
}

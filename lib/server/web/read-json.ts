// The JSON body of an API request, size-limited before and after reading it, with errors the
// route mapper answers (415, 413, 422).
import { HttpError } from './api-errors';

export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const type = request.headers.get('content-type') ?? '';
  if (!type.toLowerCase().startsWith('application/json'))
    throw new HttpError('unsupported-media-type', 'Send JSON: Content-Type: application/json');
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > maxBytes) throw new HttpError('too-large', 'The request body is too large');
  const text = await request.text();
  if (Buffer.byteLength(text) > maxBytes)
    throw new HttpError('too-large', 'The request body is too large');
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError('invalid-json', 'The body is not valid JSON');
  }
}

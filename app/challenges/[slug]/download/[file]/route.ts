// Downloads of a challenge: the contestant kit <slug>-kit.tar.gz and <slug>-kit.zip, and public-input.txt.
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { slugSchema } from '../../../../../contracts';
import { loadChallenge } from '../../../../../lib/core/challenge/load-manifest';
import { db } from '../../../../../lib/server/db/client';
import { getContest } from '../../../../../lib/server/db/contest/get-contest';
import { HttpError, route } from '../../../../../lib/server/web/api-errors';
import {
  archiveName,
  kitArchiveFile,
  publicInput,
  type ArchiveFormat,
} from '../../../../../lib/server/web/challenge-files';

export const dynamic = 'force-dynamic';

const paramsSchema = z.object({
  slug: slugSchema,
  file: z.string().max(100),
});

export const GET = route(
  async (_request: Request, context: { params: Promise<{ slug: string; file: string }> }) => {
    const params = paramsSchema.safeParse(await context.params);
    if (!params.success) throw new HttpError('not-found', 'Not found');
    const { slug, file } = params.data;
    // Only challenges the platform has registered, not any folder that happens to exist.
    await getContest(db(), slug);
    const challenge = await loadChallenge(slug);

    for (const format of ['tar.gz', 'zip'] as ArchiveFormat[])
      if (file === archiveName(slug, format)) {
        const kit = await kitArchiveFile(challenge, format);
        return new Response(Readable.toWeb(createReadStream(kit.path)) as ReadableStream, {
          headers: {
            'content-type': format === 'zip' ? 'application/zip' : 'application/gzip',
            'content-length': String(kit.bytes),
            'content-disposition': `attachment; filename="${file}"`,
            'cache-control': 'public, max-age=300',
          },
        });
      }

    if (file === 'public-input.txt') {
      const input = await publicInput(challenge);
      return new Response(Readable.toWeb(createReadStream(input.path)) as ReadableStream, {
        headers: {
          'content-type': 'text/plain; charset=utf-8',
          'content-length': String(input.bytes),
          'content-disposition': `attachment; filename="${slug}-public-input.txt"`,
          'x-content-sha256': input.sha256,
          'cache-control': 'public, max-age=3600',
        },
      });
    }
    throw new HttpError('not-found', `No download "${file}"`);
  },
);

// Downloads that belong to no one challenge: the contestant CLI, perfjudge-cli.tgz (an `npm pack`
// tarball: `npm install -g <this URL>`), built from the platform's own sources on first request.
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { env } from '../../../lib/core/config/env';
import { cliPackage } from '../../../lib/server/kit/cli-package';
import { HttpError, route } from '../../../lib/server/web/api-errors';

export const dynamic = 'force-dynamic';

export const GET = route(
  async (_request: Request, context: { params: Promise<{ file: string }> }) => {
    const { file } = await context.params;
    if (file !== 'perfjudge-cli.tgz')
      throw new HttpError('not-found', `No download "${file.slice(0, 100)}"`);
    const tarball = await cliPackage(env().PERFJUDGE_DATA_DIR);
    return new Response(Readable.toWeb(createReadStream(tarball.path)) as ReadableStream, {
      headers: {
        'content-type': 'application/gzip',
        'content-length': String(tarball.bytes),
        'content-disposition': 'attachment; filename="perfjudge-cli.tgz"',
        'cache-control': 'public, max-age=300',
      },
    });
  },
);

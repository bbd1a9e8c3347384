// A reader that stops early (`perfjudge status --help | head -1`) closes the CLI's stdout: the
// command ends quietly with 0, as Unix tools do, not with a stack trace for the unhandled EPIPE.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';
import { REPO_ROOT } from '../../lib/core/config/env';

it('ends quietly when its reader has closed the pipe', async () => {
  const child = spawn(
    process.execPath,
    [path.join(REPO_ROOT, 'bin/perfjudge.mjs'), 'status', '--help'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout.destroy(); // the reader is gone before the first line is written
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  expect(stderr).not.toMatch(/EPIPE/);
  expect(code).toBe(0);
});

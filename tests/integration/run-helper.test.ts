// The one output loop every sandbox uses (runner/sandbox/run-helper.ts), around a real process: the
// environment and folder it is given (the Windows job helper needs both; bwrap's init none), and
// stdout capped at the output limit, hashed as kept, and the run stopped.
import { createHash } from 'node:crypto';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHelper } from '../../runner/sandbox/run-helper';

let dir = '';
beforeAll(async () => {
  dir = await realpath(await mkdtemp(path.join(tmpdir(), 'run-helper-')));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const base = {
  file: '/bin/sh',
  reportOnFd3: false,
  stdout: 'capture' as const,
  outputBytes: 1 << 20,
  stderrBytes: 1024,
  backstopMs: 10_000,
};

describe('runHelper', () => {
  it('starts the helper with an empty environment unless given one, in the folder given', async () => {
    // The runner's own variables (its PATH, at least) must not reach a helper given none.
    const bare = await runHelper({ ...base, args: ['-c', 'env'] });
    expect(bare.stdout?.toString()).not.toMatch(/^PATH=/m);
    const given = await runHelper({
      ...base,
      args: ['-c', 'echo "[$X]"; pwd; env'],
      env: { X: 'y' },
      cwd: dir,
    });
    expect(given.stdout?.toString()).toMatch(new RegExp(`^\\[y\\]\n${dir}\n`));
    expect(given.stdout?.toString()).not.toMatch(/^PATH=/m);
    expect(given.helperExitCode).toBe(0);
  });

  it('keeps and hashes stdout up to the limit, then stops the helper', async () => {
    const outcome = await runHelper({
      ...base,
      args: ['-c', 'while :; do echo 0123456789; done'],
      outputBytes: 1000,
    });
    expect(outcome.outputExceeded).toBe(true);
    expect(outcome.stdout).toHaveLength(1000);
    expect(outcome.stdoutBytes).toBeGreaterThan(1000);
    expect(outcome.stdoutSha256).toBe(createHash('sha256').update(outcome.stdout!).digest('hex'));
    expect(outcome.helperSignal).toBe('SIGTERM');
  });
});

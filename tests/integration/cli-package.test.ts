// The packed contestant CLI (scripts/pack-cli.ts): an `npm pack` tarball that installs into an
// empty folder outside the repository with nothing else to fetch, offers the contestant's
// commands only, carries the challenge definitions and the helper sources, and refuses to judge
// where the sandbox does not start instead of timing unsandboxed.
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lib/core/config/env';
import { packCli } from '../../scripts/pack-cli';

const execFileAsync = promisify(execFile);
const PATCH = path.join(
  REPO_ROOT,
  'challenges/wordcount/submissions/accepted/fast-hash-table.patch',
);

let dir: string;
let tarball: string;
let perfjudge: string;

async function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(command, args, {
      cwd: dir,
      env: { ...process.env, ...env },
      maxBuffer: 16 << 20,
    });
    return { code: 0, output: `${stdout}${stderr}` };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, output: `${e.stdout}${e.stderr}` };
  }
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-cli-package-'));
  await chmod(dir, 0o755);
  tarball = await packCli(path.join(dir, 'pack'));
  await mkdir(path.join(dir, 'install'));
  const installed = await run('npm', [
    'install',
    '--no-audit',
    '--no-fund',
    '--offline',
    '--prefix',
    path.join(dir, 'install'),
    tarball,
  ]);
  expect(installed.code, installed.output).toBe(0);
  perfjudge = path.join(dir, 'install/node_modules/.bin/perfjudge');
}, 300_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('holds one bundle, the helper sources and the challenges, and no dependencies', async () => {
  const { stdout } = await execFileAsync('tar', ['tzf', tarball]);
  const files = stdout.trim().split('\n');
  expect(files).toContain('package/dist/perfjudge.mjs');
  expect(files).toContain('package/dist/sandbox-helper.c');
  expect(files).toContain('package/challenges/wordcount/manifest.yaml');
  expect(files).toContain('package/challenges/wordcount/harness/main.cpp');
  expect(files.filter((f) => f.endsWith('.ts'))).toEqual([]);
  expect(files.some((f) => f.includes('/submissions/'))).toBe(false);
  const { stdout: manifest } = await execFileAsync('tar', [
    'xzOf',
    tarball,
    'package/package.json',
  ]);
  const pkg = JSON.parse(manifest) as Record<string, unknown>;
  expect(pkg.bin).toEqual({ perfjudge: 'dist/perfjudge.mjs' });
  expect(pkg.dependencies).toBeUndefined();
});

it("offers the contestant's commands, not the platform's services", async () => {
  const help = await run(perfjudge, ['--help']);
  expect(help.code, help.output).toBe(0);
  for (const command of ['doctor', 'judge', 'submit', 'status', 'gen', 'manifest', 'reference'])
    expect(help.output).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
  for (const command of ['runner', 'scorer', 'reconcile'])
    expect(help.output).not.toMatch(new RegExp(`^  ${command}\\b`, 'm'));
  // The challenge definitions come from the package itself.
  const manifest = await run(perfjudge, ['manifest', 'wordcount']);
  expect(manifest.code, manifest.output).toBe(0);
  expect(manifest.output).toContain('"slug": "wordcount"');
});

// Masking bwrap needs a private mount namespace, which only root can make here.
it.runIf(process.getuid?.() === 0)(
  'refuses to judge, saying why, where the sandbox does not start',
  async () => {
    const fake = path.join(dir, 'not-bwrap');
    await writeFile(fake, '');
    const data = path.join(dir, 'data');
    const refused = await run(
      'unshare',
      [
        '-m',
        'sh',
        '-c',
        `mount --bind "${fake}" /usr/bin/bwrap && exec "${process.execPath}" "${perfjudge}" judge --patch "${PATCH}"`,
      ],
      { PERFJUDGE_DATA_DIR: data },
    );
    expect(refused.code).toBe(2);
    expect(refused.output).toContain('this machine cannot judge');
    expect(refused.output).toContain('never unsandboxed');
    expect(refused.output).not.toContain('ACCEPTED');
  },
  120_000,
);

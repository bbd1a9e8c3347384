// bin/start-bundle.mjs, the bundle `perfjudge` starts from: never stale, whatever changed and
// however quickly, and safe to build from several starts at once. Each case runs in a copy of the
// bundler inside a scratch checkout (package.json, tsconfig, this node_modules linked), in a child
// Node process without a TypeScript loader, as bin/perfjudge.mjs runs it.
import { execFile } from 'node:child_process';
import {
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT as ROOT } from '../../lib/core/config/env';

const run = promisify(execFile);

let repo: string;
beforeAll(async () => {
  repo = await mkdtemp(path.join(tmpdir(), 'perfjudge-start-bundle-'));
  await mkdir(path.join(repo, 'bin'));
  await mkdir(path.join(repo, 'src'));
  await cp(path.join(ROOT, 'bin/start-bundle.mjs'), path.join(repo, 'bin/start-bundle.mjs'));
  for (const file of ['package.json', 'tsconfig.json', 'tsconfig.base.json'])
    await cp(path.join(ROOT, file), path.join(repo, file));
  await symlink(path.join(ROOT, 'node_modules'), path.join(repo, 'node_modules'));
});
afterAll(async () => {
  await rm(repo, { recursive: true, force: true });
});

/** `src/<file>` in the scratch checkout. */
const src = (file: string) => path.join(repo, 'src', file);

/** Imports src/entry.ts through importBundled in a fresh process: what it exports, and stderr. */
async function start(): Promise<{ value: unknown; stderr: string }> {
  const script = `
    const { importBundled } = await import(${JSON.stringify(pathToFileURL(path.join(repo, 'bin/start-bundle.mjs')).href)});
    const module = await importBundled(${JSON.stringify(src('entry.ts'))});
    console.log(JSON.stringify(module === undefined ? null : module.value));`;
  const { stdout, stderr } = await run(process.execPath, ['--input-type=module', '-e', script], {
    cwd: repo,
  });
  return { value: JSON.parse(stdout) as unknown, stderr };
}

async function builds(): Promise<string[]> {
  return (await readdir(path.join(repo, '.data/start-bundles'))).filter((f) => f.includes('@'));
}

describe('start bundles', () => {
  it('runs the sources as they are, bundled once while they do not change', async () => {
    await writeFile(src('dep.ts'), "export const dep: string = 'one';\n");
    await writeFile(
      src('entry.ts'),
      "import { dep } from './dep';\nexport const value = { dep, url: import.meta.url };\n",
    );
    const first = await start();
    // import.meta.url is the module's source, as under tsx: files beside it are found.
    expect(first).toEqual({
      value: { dep: 'one', url: pathToFileURL(src('entry.ts')).href },
      stderr: '',
    });
    const built = await builds();
    expect(built).toHaveLength(1);
    expect((await start()).value).toEqual(first.value);
    expect(await builds()).toEqual(built);
  });

  it('sees an edit of the same size within the same timestamp', async () => {
    // Two saves within one tick of the file system's clock: same size, same time.
    const tick = new Date(Math.floor(Date.now() / 1000) * 1000);
    await writeFile(src('dep.ts'), "export const dep: string = 'two';\n");
    await utimes(src('dep.ts'), tick, tick);
    expect(((await start()).value as { dep: string }).dep).toBe('two');
    await writeFile(src('dep.ts'), "export const dep: string = 'TWO';\n");
    await utimes(src('dep.ts'), tick, tick);
    expect(((await start()).value as { dep: string }).dep).toBe('TWO');
  });

  it('sees a new file that changes what an import resolves to', async () => {
    // esbuild, like tsc, resolves ./dep to dep.tsx before dep.ts.
    await writeFile(src('dep.tsx'), "export const dep: string = 'three';\n");
    expect(((await start()).value as { dep: string }).dep).toBe('three');
    await rm(src('dep.tsx'));
    expect(((await start()).value as { dep: string }).dep).toBe('TWO');
  });

  it('gives every concurrent start a complete, current bundle', async () => {
    await writeFile(src('dep.ts'), "export const dep: string = 'four, at once';\n");
    const starts = await Promise.all([start(), start(), start(), start()]);
    for (const { value } of starts) expect((value as { dep: string }).dep).toBe('four, at once');
    const manifest = JSON.parse(
      await readFile(path.join(repo, '.data/start-bundles/src-entry.json'), 'utf8'),
    ) as { dir: string };
    expect(await builds()).toContain(manifest.dir);
  });

  it('says in one line why it cannot bundle, and returns nothing for the caller to load', async () => {
    await writeFile(src('dep.ts'), 'export const dep: string = ;\n');
    const { value, stderr } = await start();
    expect(value).toBeNull();
    expect(stderr).toMatch(
      /^perfjudge: running src\/entry\.ts from source through tsx \(could not bundle it: src\/dep\.ts:1: .+\)\n$/,
    );
  });
});

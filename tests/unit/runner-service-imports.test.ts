// Runners need Redis only: nothing the runner service or its command imports, however
// indirectly, may reach the database layer, Prisma, the pg driver or DATABASE_URL.
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lib/config/env';

const STATIC = /(?:^|[\n;])\s*(?:import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]/g;
const BARE_OR_DYNAMIC =
  /(?:^|[\n;])\s*import\s+['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Specifiers of imports that survive compilation (type-only ones are erased, as tsx does). */
function runtimeImports(source: string): string[] {
  const found: string[] = [];
  for (const [, typeOnly, clause, specifier] of source.matchAll(STATIC)) {
    if (typeOnly) continue;
    const names = /^\{([^}]*)\}$/.exec(clause!.trim())?.[1];
    const entries = names
      ?.split(',')
      .map((n) => n.trim())
      .filter(Boolean);
    if (entries?.length && entries.every((n) => n.startsWith('type '))) continue;
    found.push(specifier!);
  }
  for (const [, bare, dynamic] of source.matchAll(BARE_OR_DYNAMIC)) found.push((bare ?? dynamic)!);
  return found;
}

async function isFile(file: string): Promise<boolean> {
  return stat(file).then(
    (s) => s.isFile(),
    () => false,
  );
}

async function resolveRelative(from: string, specifier: string): Promise<string> {
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, path.join(base, 'index.ts')])
    if (/\.(ts|mjs|js)$/.test(candidate) && (await isFile(candidate))) return candidate;
  throw new Error(`cannot resolve ${specifier} from ${from}`);
}

/** Every source file reachable from the entries through relative imports, and every package. */
async function importGraph(
  entries: string[],
): Promise<{ files: Set<string>; packages: Set<string> }> {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = entries.map((e) => path.join(REPO_ROOT, e));
  while (queue.length) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    const source = await readFile(file, 'utf8');
    for (const specifier of runtimeImports(source)) {
      if (specifier.startsWith('.')) queue.push(await resolveRelative(file, specifier));
      else packages.add(specifier);
    }
  }
  return { files, packages };
}

const relative = (files: Set<string>) => [...files].map((f) => path.relative(REPO_ROOT, f));
const DB_PACKAGE = /^(@prisma\/|prisma$|pg$|pg\/)/;

describe('runner service import graph', () => {
  it('never reaches lib/db, Prisma, pg or DATABASE_URL', async () => {
    const { files, packages } = await importGraph([
      'runner/service/index.ts',
      'cli/commands/runner.ts',
    ]);
    const names = relative(files);
    // The walk does follow the runner into the judge and the queue connection.
    expect(names).toContain('runner/judge/judge.ts');
    expect(names).toContain('lib/queue/connection.ts');
    expect(packages).toContain('bullmq');

    expect(names.filter((f) => f.startsWith('lib/db/'))).toEqual([]);
    expect([...packages].filter((p) => DB_PACKAGE.test(p))).toEqual([]);
    const readers: string[] = [];
    for (const file of files) {
      // The env module declares every variable (optional); nothing else may name this one.
      if (path.relative(REPO_ROOT, file) === 'lib/config/env.ts') continue;
      if ((await readFile(file, 'utf8')).includes('DATABASE_URL')) readers.push(file);
    }
    expect(relative(new Set(readers))).toEqual([]);
  });

  it('perfjudge doctor (packed for contestants) reaches no database or web code either', async () => {
    const { files, packages } = await importGraph(['cli/commands/doctor.ts']);
    const names = relative(files);
    expect(names).toContain('runner/host/noise-probe.ts');
    expect(names.filter((f) => f.startsWith('lib/db/') || f.startsWith('app/'))).toEqual([]);
    expect(
      [...packages].filter((p) => DB_PACKAGE.test(p) || /^(next|react|bullmq|ioredis)/.test(p)),
    ).toEqual([]);
  });

  it('would notice: the database client does reach Prisma and pg', async () => {
    const { packages } = await importGraph(['lib/db/client.ts']);
    expect([...packages].filter((p) => DB_PACKAGE.test(p)).length).toBeGreaterThan(0);
  });
});

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import {
  CHALLENGES_DIR,
  loadChallenge,
  parseManifest,
} from '../../lib/core/challenge/load-manifest';
import { parseByteSize } from '../../contracts';

async function wordcountRaw(): Promise<Record<string, unknown>> {
  return parseYaml(await readFile(path.join(CHALLENGES_DIR, 'wordcount/manifest.yaml'), 'utf8'));
}

describe('challenge manifest', () => {
  it('loads the wordcount manifest with sizes in bytes and every group required', async () => {
    const { manifest } = await loadChallenge('wordcount');
    expect(manifest.slug).toBe('wordcount');
    expect(manifest.inputs.benchmark.size).toBe(256 * 1024 * 1024);
    expect(manifest.targets['linux-intel']?.toolchain.flags).toEqual([
      '-O3',
      '-march=native',
      '-std=c++17',
      '-DNDEBUG',
    ]);
    expect(manifest.tests.groups.length).toBeGreaterThanOrEqual(6);
    expect(manifest.tests.groups.every((g) => g.required)).toBe(true);
    expect(manifest.scoring.formula).toBe('sum');
  });

  it('states the host memory conditions, a pool as a multiple of 2 MiB', async () => {
    const { manifest } = await loadChallenge('wordcount');
    expect(manifest.host).toEqual({
      memory: { transparentHugePages: 'madvise', hugePages: 'none' },
    });
    const raw = await wordcountRaw();
    const memory = (raw.host as { memory: Record<string, unknown> }).memory;
    memory.hugePages = '1GiB';
    expect(parseManifest(raw, 'test').host?.memory.hugePages).toBe(1024 ** 3);
    memory.hugePages = '3MiB';
    expect(() => parseManifest(raw, 'test')).toThrow(
      /host\.memory\.hugePages: must be "none" or a positive multiple of 2MiB/,
    );
    memory.hugePages = 'none';
    memory.transparentHugePages = 'sometimes';
    expect(() => parseManifest(raw, 'test')).toThrow(/host\.memory\.transparentHugePages/);
  });

  it('refuses build flags that define different macros on different targets (NDEBUG on one only)', async () => {
    const raw = await wordcountRaw();
    const targets = raw.targets as Record<string, { toolchain: { flags: string[] } }>;
    targets['linux-intel']!.toolchain.flags = ['-O3', '-march=native', '-std=c++17'];
    expect(() => parseManifest(raw, 'test')).toThrow(
      /targets\.linux-intel\.toolchain\.flags: targets windows-amd and linux-intel define different macros \(NDEBUG vs none\)|targets\.windows-amd\.toolchain\.flags: targets linux-intel and windows-amd define different macros \(none vs NDEBUG\)/,
    );
  });

  it('names the field when a value is wrong', async () => {
    const raw = await wordcountRaw();
    (raw.limits as Record<string, unknown>).memory = 'lots';
    expect(() => parseManifest(raw, 'test')).toThrow(/limits\.memory: "lots" is not a size/);
  });

  it('names a missing field and an unknown one', async () => {
    const raw = await wordcountRaw();
    delete raw.runPolicy;
    raw.colour = 'blue';
    const attempt = () => parseManifest(raw, 'test');
    expect(attempt).toThrow(/runPolicy:/);
    expect(attempt).toThrow(/colour/);
  });

  it('rejects paths that climb out of the challenge and inconsistent run policies', async () => {
    const raw = await wordcountRaw();
    raw.templateDir = '../elsewhere';
    (raw.runPolicy as Record<string, unknown>).maxPairs = 3;
    const attempt = () => parseManifest(raw, 'test');
    expect(attempt).toThrow(/templateDir: must be a relative path/);
    expect(attempt).toThrow(/runPolicy\.maxPairs: maxPairs must be at least minPairs/);
  });

  it('rejects duplicate test groups', async () => {
    const raw = await wordcountRaw();
    const groups = (raw.tests as { groups: unknown[] }).groups;
    groups.push(groups[0]);
    expect(() => parseManifest(raw, 'test')).toThrow(/duplicate test group "separators"/);
  });
});

describe('byte sizes', () => {
  it.each([
    ['256MiB', 268435456],
    ['64 MB', 64_000_000],
    ['1024', 1024],
    ['1.5KiB', 1536],
    ['2G', 2 * 1024 ** 3],
  ])('%s is %d bytes', (text, bytes) => expect(parseByteSize(text)).toBe(bytes));

  it.each(['', 'MiB', '12 parsecs', '-5MiB'])('%j is not a size', (text) =>
    expect(parseByteSize(text)).toBeUndefined(),
  );
});

// Test helpers for judging real patches: small inputs, few pairs, caches shared across test files.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { JudgingResult, Limits, RunPolicy, TargetId } from '../../contracts';
import { REPO_ROOT } from '../../lib/config/env';
import { loadChallenge, type Challenge } from '../../lib/challenge/load-manifest';
import { cpuVendor } from '../../runner/host/fingerprint';
import { judge } from '../../runner/judge/judge';
import { createSandbox } from '../../runner/sandbox';

const execFileAsync = promisify(execFile);

/** Builds, inputs and expected outputs cached for every test run on this machine (gitignored). */
export const TEST_DATA_DIR = path.join(REPO_ROOT, '.data', 'test');

export interface TestJudgeOptions {
  limits?: Partial<Limits>;
  runPolicy?: Partial<RunPolicy>;
  benchmarkBytes?: number;
  publicBytes?: number | null;
  target?: TargetId;
  signal?: AbortSignal;
  onLog?: (line: string) => void;
}

/** The wordcount challenge, optionally with tighter limits so limit tests end quickly. */
export async function wordcountChallenge(limits: Partial<Limits> = {}): Promise<Challenge> {
  const challenge = await loadChallenge('wordcount');
  return {
    ...challenge,
    manifest: { ...challenge.manifest, limits: { ...challenge.manifest.limits, ...limits } },
  };
}

const sandbox = createSandbox('bubblewrap');

export async function judgeForTest(
  patchText: string | Buffer,
  options: TestJudgeOptions = {},
): Promise<JudgingResult> {
  const challenge = await wordcountChallenge(options.limits);
  const target = options.target ?? 'linux-intel';
  return judge({
    challenge,
    target,
    patchText,
    sandbox,
    dataDir: TEST_DATA_DIR,
    benchmark: {
      seed: 'test-benchmark',
      sizeBytes: options.benchmarkBytes ?? 2 << 20,
      rareSeparators: false,
    },
    benchmarkSeedIsSecret: false,
    publicInput:
      options.publicBytes === null
        ? null
        : { seed: 'test-public', sizeBytes: options.publicBytes ?? 1 << 20, rareSeparators: false },
    runPolicy: { warmups: 1, minPairs: 3, maxPairs: 3, ...options.runPolicy },
    devMode: (await cpuVendor()) !== challenge.manifest.targets[target]?.cpuVendor,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onLog ? { onLog: options.onLog } : {}),
  });
}

/**
 * A real `git diff` of the template with some files replaced (string), added, or deleted (null):
 * exactly what a contestant would submit.
 */
export async function makePatch(files: Record<string, string | null>): Promise<string> {
  const challenge = await loadChallenge('wordcount');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-patch-'));
  const git = (...args: string[]) =>
    execFileAsync('git', ['-c', 'user.email=test@example.com', '-c', 'user.name=test', ...args], {
      cwd: dir,
    });
  try {
    await cp(challenge.templateDir, dir, { recursive: true });
    await git('init', '-q');
    await git('add', '-A');
    await git('commit', '-q', '-m', 'template');
    for (const [file, content] of Object.entries(files)) {
      const full = path.join(dir, file);
      if (content === null) await rm(full);
      else {
        await mkdir(path.dirname(full), { recursive: true });
        await writeFile(full, content);
      }
    }
    await git('add', '-A');
    const { stdout } = await git('diff', '--cached');
    return stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The template's wordcount.cpp with the SOLUTION branch replaced by `code`. */
export async function solutionSource(code: string): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const challenge = await loadChallenge('wordcount');
  const template = await readFile(path.join(challenge.templateDir, 'wordcount.cpp'), 'utf8');
  const start = template.indexOf('#ifdef SOLUTION');
  const end = template.indexOf('#else');
  if (start < 0 || end < 0) throw new Error('template wordcount.cpp has no SOLUTION branch');
  return `${template.slice(0, start)}#ifdef SOLUTION\n${code}\n${template.slice(end)}`;
}

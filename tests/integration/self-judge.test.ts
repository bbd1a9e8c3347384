// Every challenge judges itself: each example patch in challenges/<slug>/submissions/<verdict>/ is judged for real and must get its folder's verdict.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import {
  parseByteSize,
  VERDICTS,
  type JudgingResult,
  type Limits,
  type Verdict,
} from '../../contracts';
import { CHALLENGES_DIR, loadChallenge } from '../../lib/core/challenge/load-manifest';
import { PUBLIC_INPUT_GROUP } from '../../runner/judge/test-stage';
import { listSubmissionFolders, makeSubmissionPatch } from '../../scripts/make-submission-patch';
import { judgeForTest, wordcountChallenge } from '../helpers/judging';

const MiB = 1 << 20;

/**
 * The challenges whose examples are judged. wordcount's are complete (every verdict, a wrong answer
 * per edge-case family, each kind of rejection); a smaller challenge's cover what it holds.
 */
const CHALLENGES: { slug: string; complete: boolean }[] = [
  { slug: 'wordcount', complete: true },
  { slug: 'maxsubarray', complete: false },
];

/**
 * Tighter than the manifest's, so the limit cases end quickly. The judge runs every test even after
 * a limit failure, so a limit case costs (edge cases + 1) × its limit: those get tighter still.
 */
const LIMITS: Partial<Limits> = {
  testRunSeconds: 3,
  benchmarkRunSeconds: 30,
  memory: 512 * MiB,
  outputBytes: 16 * MiB,
};
const LIMITS_BY_VERDICT: Partial<Record<Verdict, Partial<Limits>>> = {
  TIME_LIMIT_EXCEEDED: { testRunSeconds: 0.5, benchmarkRunSeconds: 0.5 },
  MEMORY_LIMIT_EXCEEDED: { memory: 128 * MiB },
};
/**
 * Timed runs only for ACCEPTED, on the judging tests' shared benchmark input (2 MiB, cached for
 * every file): the bounds it checks are far apart (a fast solution several times the baseline, the
 * baseline run twice about half of it), and a warm-up run is read by no assertion.
 */
const ACCEPTED_POLICY = { warmups: 0, minPairs: 3, maxPairs: 3 };

/** What a patch's first line, `# <description> (<key>: <value>)`, promises beyond the verdict. */
interface Expectation {
  /** WRONG_ANSWER: exactly the edge-case groups that fail. */
  fails?: string[];
  /** REJECTED: the intake's reason code. */
  reason?: string;
  /** ACCEPTED: a bound on the speedup. */
  speedup?: { op: '<' | '>' | '='; value: number };
}

interface Submission {
  slug: string;
  /** `<verdict folder>/<name>.patch`, the test's name. */
  id: string;
  verdictDir: string;
  expected: Verdict | undefined;
  patchPath: string;
  text: string;
  description: string;
  expectation: Expectation;
}

function parseExpectation(description: string): Expectation {
  const match = /\((fails|reason|speedup)\s*(:|<|>|=)\s*([^)]*)\)\s*$/.exec(description);
  if (!match) return {};
  const [, key, op, value] = match as unknown as [string, string, string, string];
  if (key === 'fails')
    return {
      fails: value
        .split(',')
        .map((g) => g.trim())
        .sort(),
    };
  if (key === 'reason') return { reason: value.trim() };
  if (op === ':') throw new Error(`"(speedup: …)" needs a comparison: (speedup > 1.3)`);
  return { speedup: { op: op as '<' | '>' | '=', value: Number(value) } };
}

/** Found when the file is collected, so that each submission is its own named test. */
function discoverSubmissions(slug: string): Submission[] {
  const submissionsDir = path.join(CHALLENGES_DIR, slug, 'submissions');
  const found: Submission[] = [];
  for (const verdictDir of readdirSync(submissionsDir).sort()) {
    const dir = path.join(submissionsDir, verdictDir);
    if (!statSync(dir).isDirectory()) continue;
    for (const file of readdirSync(dir).sort()) {
      if (!file.endsWith('.patch')) continue;
      const patchPath = path.join(dir, file);
      const text = readFileSync(patchPath, 'utf8');
      const description = /^# (.*)\n/.exec(text)?.[1] ?? '';
      const upper = verdictDir.toUpperCase();
      found.push({
        slug,
        id: `${verdictDir}/${file}`,
        verdictDir,
        expected: (VERDICTS as readonly string[]).includes(upper) ? (upper as Verdict) : undefined,
        patchPath,
        text,
        description,
        expectation: parseExpectation(description),
      });
    }
  }
  return found;
}

const submissions = CHALLENGES.flatMap(({ slug }) => discoverSubmissions(slug));

/** Files a patch creates (the `+++` name of each section with `new file mode`). */
function addedFiles(patch: string): string[] {
  return patch
    .split(/^(?=diff --git )/m)
    .filter((section) => /^new file mode /m.test(section))
    .map((section) => /^\+\+\+ b\/(.+)$/m.exec(section)?.[1] ?? '')
    .filter(Boolean);
}

function failingGroups(result: JudgingResult): string[] {
  const groups = new Set(
    (result.stages.test?.cases ?? [])
      .filter((c) => c.outcome !== 'passed' && c.group !== PUBLIC_INPUT_GROUP)
      .map((c) => c.group),
  );
  return [...groups].sort();
}

/** One line per judged submission, printed at the end: what the judge said. */
function summary(s: Submission, result: JudgingResult): string {
  const estimate = result.stages.measure?.estimate;
  const speedup = estimate ? ` speedup ${estimate.speedup.toFixed(2)}` : '';
  const groups = failingGroups(result);
  const failed = groups.length ? ` failing groups: ${groups.join(', ')}` : '';
  return `${s.slug}/${s.id}: ${result.verdict} — ${result.message}${speedup}${failed}`;
}

describe.each(CHALLENGES)('the example submissions of $slug', ({ slug, complete }) => {
  const ofChallenge = submissions.filter((s) => s.slug === slug);
  const byVerdict = (verdict: Verdict) => ofChallenge.filter((s) => s.expected === verdict);

  it('sit in folders named after real verdicts, each patch headed by a one-line description', () => {
    expect(ofChallenge.length).toBeGreaterThan(0);
    for (const s of ofChallenge) {
      expect(
        s.expected,
        `${s.verdictDir}/ is not a verdict (${VERDICTS.join(', ')})`,
      ).toBeDefined();
      // The platform's own failure is never a submission's expected verdict.
      expect(s.expected).not.toBe('JUDGE_ERROR');
      expect(s.description, `${s.id} must start with "# <what it does and why>"`).not.toBe('');
      expect(s.text.indexOf('diff --git')).toBeGreaterThan(0);
    }
  });

  it('give each wrong answer the edge-case groups it fails, and accept the baseline copied', () => {
    for (const wrong of byVerdict('WRONG_ANSWER'))
      expect(
        wrong.expectation.fails,
        `${wrong.id}: end its description with (fails: <groups>)`,
      ).toBeDefined();
    expect(
      byVerdict('ACCEPTED').some(
        (s) => s.expectation.speedup?.op === '=' && s.expectation.speedup.value === 1,
      ),
      'the baseline, copied',
    ).toBe(true);
  });

  // Only for the complete example set: registered when it applies rather than skipped.
  if (complete)
    it('cover every verdict a contestant can get, and each case the challenge needs', async () => {
      for (const verdict of VERDICTS.filter((v) => v !== 'JUDGE_ERROR'))
        expect(byVerdict(verdict).length, `no example for ${verdict}`).toBeGreaterThanOrEqual(1);

      const accepted = byVerdict('ACCEPTED');
      const bounds = accepted.map((s) => s.expectation.speedup);
      expect(
        bounds.some((b) => b?.op === '>' && b.value >= 1.3),
        'a clearly faster solution',
      ).toBe(true);
      expect(
        bounds.some((b) => b?.op === '<' && b.value < 1),
        'a correct slower solution',
      ).toBe(true);
      expect(
        bounds.some((b) => b?.op === '=' && b.value === 1),
        'the baseline, copied',
      ).toBe(true);
      expect(
        accepted.some((s) => {
          const added = addedFiles(s.text);
          return (
            added.some((f) => /\/[^/]+\.hpp$/.test(f)) && added.some((f) => f.endsWith('.cpp'))
          );
        }),
        'a solution that adds a header in a sub-folder and a new .cpp file',
      ).toBe(true);

      // Each edge-case family has a wrong answer that fails it and nothing else.
      const groups = (await loadChallenge(slug)).manifest.tests.groups.map((g) => g.id);
      for (const group of groups) {
        expect(
          byVerdict('WRONG_ANSWER').some((s) => s.expectation.fails?.join() === group),
          `a wrong answer that fails exactly the ${group} group`,
        ).toBe(true);
      }

      expect(byVerdict('BUILD_ERROR').length).toBeGreaterThanOrEqual(2); // a compile and a link error
      expect(byVerdict('RUNTIME_ERROR').length).toBeGreaterThanOrEqual(2); // a crash and an exit code
      const rejected = byVerdict('REJECTED');
      for (const reason of ['protected-file', 'not-allowed', 'unsafe-path'])
        expect(
          rejected.some((s) => s.expectation.reason === reason),
          reason,
        ).toBe(true);
      for (const file of ['main.cpp', 'CMakeLists.txt'])
        expect(
          rejected.some((s) => s.text.includes(`\n+++ b/${file}\n`)),
          `touches ${file}`,
        ).toBe(true);
      expect(
        rejected.some((s) => addedFiles(s.text).some((f) => f.endsWith('.txt'))),
        'adds a .txt file',
      ).toBe(true);
      expect(
        rejected.some((s) => s.text.includes('\n+++ b/../')),
        'a ../ path',
      ).toBe(true);
    });

  it('are in sync with their source folders (scripts/make-submission-patch.ts regenerates them)', async () => {
    const challenge = await loadChallenge(slug);
    const folders = await listSubmissionFolders(challenge);
    expect(folders.length).toBeGreaterThan(0);
    for (const folder of folders) {
      const current = await readFile(folder.patchPath, 'utf8').catch(() => null);
      expect(current, `${folder.patchPath} is missing`).not.toBeNull();
      expect(
        current,
        `${folder.patchPath} is out of date: run npx tsx scripts/make-submission-patch.ts`,
      ).toBe(await makeSubmissionPatch(challenge, folder.dir));
    }
  });
});

describe('the manifest', () => {
  it('keeps its real limits: the tighter ones here are for this test only', async () => {
    const raw = parseYaml(
      await readFile(path.join(CHALLENGES_DIR, 'wordcount', 'manifest.yaml'), 'utf8'),
    ) as { limits: Record<string, number | string> };
    const asNumber = (v: number | string | undefined) =>
      typeof v === 'string' ? parseByteSize(v) : v;
    // A tightened copy must not leak into the manifest later judgings load.
    const tightened = await wordcountChallenge({
      ...LIMITS,
      ...LIMITS_BY_VERDICT.TIME_LIMIT_EXCEEDED,
    });
    expect(tightened.manifest.limits.testRunSeconds).toBe(0.5);
    const { limits } = (await loadChallenge('wordcount')).manifest;
    for (const [key, value] of Object.entries(limits))
      expect(value, `limits.${key}`).toBe(asNumber(raw.limits[key]));
    expect(limits.testRunSeconds).toBeGreaterThan(LIMITS.testRunSeconds!);
    expect(limits.memory).toBeGreaterThan(LIMITS.memory!);
    expect(limits.outputBytes).toBeGreaterThan(LIMITS.outputBytes!);
  });
});

const report: string[] = [];

// Sequential (the default within a file): two busy cores, and timed runs must not overlap builds.
const verdictFolders = [...new Set(submissions.map((s) => `${s.slug}/${s.verdictDir}`))];
describe.each(verdictFolders)('%s', (folder) => {
  const cases = submissions.filter(
    (s) => `${s.slug}/${s.verdictDir}` === folder && s.expected !== undefined,
  );

  it.each(cases.map((s) => [path.basename(s.patchPath), s] as const))(
    '%s',
    async (_name, s) => {
      const accepted = s.expected === 'ACCEPTED';
      const result = await judgeForTest(s.text, {
        challenge: s.slug,
        limits: { ...LIMITS, ...LIMITS_BY_VERDICT[s.expected!] },
        // The verdicts are the point; the profile stage cannot change one (judge.test.ts and
        // measurement-depth.test.ts judge with it).
        profile: false,
        ...(accepted ? { runPolicy: ACCEPTED_POLICY } : {}),
      });
      report.push(summary(s, result));
      expect(result.verdict, `${result.message}\n${result.stages.build?.solution.log ?? ''}`).toBe(
        s.expected,
      );

      switch (s.expected) {
        case 'ACCEPTED': {
          const measure = result.stages.measure!;
          expect(measure.runs.every((r) => r.correct)).toBe(true);
          const speedup = measure.estimate!.speedup;
          const bound = s.expectation.speedup;
          if (bound?.op === '=') {
            // The baseline's own binary: 1.00 by definition, and no time spent measuring it.
            expect(result.stages.build!.identicalBinaries).toBe(true);
            expect(speedup).toBe(bound.value);
            expect(measure.estimate!.stopReason).toBe('identical-binaries');
            expect(measure.runs).toHaveLength(0);
          } else {
            expect(result.stages.build!.identicalBinaries).toBe(false);
            if (bound?.op === '>') expect(speedup).toBeGreaterThan(bound.value);
            if (bound?.op === '<') expect(speedup).toBeLessThan(bound.value);
          }
          // Every file the patch names was taken in (new headers and sources included).
          const named = [...s.text.matchAll(/^\+\+\+ b\/(.+)$/gm)].map((m) => m[1]);
          expect(result.stages.intake.files.map((f) => f.path).sort()).toEqual(named.sort());
          break;
        }
        case 'WRONG_ANSWER': {
          expect(failingGroups(result)).toEqual(s.expectation.fails);
          const first = result.stages.test!.cases.find((c) => c.outcome === 'wrong-answer')!;
          expect(first.diff.length).toBeGreaterThan(0);
          expect(result.message).toContain(`test ${first.group}/${first.name}`);
          break;
        }
        case 'REJECTED':
          expect(result.stages.intake.reason).toBe(s.expectation.reason);
          expect(result.stages.build).toBeNull();
          break;
        case 'BUILD_ERROR':
          expect(result.stages.build!.solution.ok).toBe(false);
          expect(result.stages.build!.solution.log).toMatch(/error/i);
          expect(result.stages.test).toBeNull();
          break;
        default:
          // Runtime and limit verdicts: decided in the test stage, before any timed run.
          expect(result.stages.measure).toBeNull();
      }
    },
    300_000,
  );
});

afterAll(() => {
  if (report.length) console.log(`\nWhat the judge said:\n  ${report.join('\n  ')}`);
});

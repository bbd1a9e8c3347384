// The test stage: the challenge's edge cases and its public input, each run in the sandbox and
// compared byte for byte. Expected outputs stay in the judge's memory, never in the sandbox's view.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { TestCaseResult } from '../../contracts';
import { loadEdgeCases } from '../../lib/core/challenge/edge-cases';
import type { Challenge } from '../../lib/core/challenge/load-manifest';
import type { Sandbox } from '../sandbox/sandbox';
import { JudgeError } from './errors';
import { ensureInput, referenceSha256, type InputSpec } from '../../lib/core/challenge/inputs';
import { firstDifferences } from './output-diff';
import { classifyRun, runProgram } from '../sandbox/run-program';
import { createHash } from 'node:crypto';

export const PUBLIC_INPUT_GROUP = 'public';

export interface TestStageOptions {
  challenge: Challenge;
  sandbox: Sandbox;
  solutionBinary: string;
  baselineBinary: string;
  baselineSha256: string;
  publicInput: InputSpec | null;
  dataDir: string;
  workDir: string;
  onProgress: (fraction: number, message: string) => void;
  log: (line: string) => void;
  signal?: AbortSignal;
}

interface Check {
  group: string;
  name: string;
  required: boolean;
  inputPath: string;
  expected: () => Promise<Buffer>;
  wallTimeMs: number;
}

export async function runTests(options: TestStageOptions): Promise<TestCaseResult[]> {
  const checks = await collectChecks(options);
  const results: TestCaseResult[] = [];
  // A crash or a limit on a required test decides the verdict: the remaining tests are skipped
  // rather than letting an infinite loop cost the judge host every test's time limit. Wrong
  // answers keep going (cheap, and the list of failing groups helps the contestant), except that
  // the public input, the slowest check, only runs when every required edge case passed.
  let stopReason: string | null = null;
  for (const [i, check] of checks.entries()) {
    if (options.signal?.aborted) break;
    if (
      check.group === PUBLIC_INPUT_GROUP &&
      results.some((r) => r.required && r.outcome !== 'passed')
    )
      stopReason ??= 'a required edge case failed';
    if (stopReason) {
      results.push(skippedCheck(check, stopReason));
      continue;
    }
    options.onProgress(
      i / checks.length,
      `test ${i + 1}/${checks.length}: ${check.group}/${check.name}`,
    );
    const { result, ranToEnd } = await runCheck(options, check);
    results.push(result);
    if (!ranToEnd && check.required)
      stopReason = `${check.group}/${check.name} ended in ${result.outcome}`;
  }
  const summary = testSummary(results);
  options.log(`tests: ${summary}`);
  options.onProgress(1, summary);
  return results;
}

/** The edge cases (their inputs written to the work folder), then the public input if any. */
async function collectChecks(options: TestStageOptions): Promise<Check[]> {
  const { challenge } = options;
  const { limits } = challenge.manifest;
  const inputsDir = path.join(options.workDir, 'test-inputs');
  await mkdir(inputsDir, { recursive: true, mode: 0o755 });
  const checks: Check[] = [];
  for (const edgeCase of await loadEdgeCases(challenge)) {
    const inputPath = path.join(inputsDir, `${edgeCase.group}--${edgeCase.name}.in`);
    await writeFile(inputPath, edgeCase.input, { mode: 0o644 });
    checks.push({
      group: edgeCase.group,
      name: edgeCase.name,
      required: edgeCase.required,
      inputPath,
      expected: async () => edgeCase.expected,
      wallTimeMs: limits.testRunSeconds * 1000,
    });
  }
  if (options.publicInput) {
    options.onProgress(0, 'generating the public input');
    const input = await ensureInput(challenge, options.publicInput, options.dataDir);
    checks.push({
      group: PUBLIC_INPUT_GROUP,
      name: `generated-${(input.bytes / 2 ** 20).toFixed(0)}MiB`,
      required: true,
      inputPath: input.path,
      expected: () => baselineOutput(options, input.path, input.sha256),
      // The public input is larger than the edge cases: allow what a benchmark run may take.
      wallTimeMs: limits.benchmarkRunSeconds * 1000,
    });
  }
  return checks;
}

function skippedCheck(check: Check, stopReason: string): TestCaseResult {
  return {
    group: check.group,
    name: check.name,
    required: check.required,
    outcome: 'skipped',
    wallMs: 0,
    message: `not run: ${stopReason}`,
    diff: [],
  };
}

/**
 * One check run in the sandbox and its output compared byte for byte with the expected one.
 * `ranToEnd` is false for a crash or a limit (then the output is not compared).
 */
async function runCheck(
  options: TestStageOptions,
  check: Check,
): Promise<{ result: TestCaseResult; ranToEnd: boolean }> {
  const run = await runProgram({
    sandbox: options.sandbox,
    binary: options.solutionBinary,
    input: check.inputPath,
    workDir: options.workDir,
    limits: options.challenge.manifest.limits,
    wallTimeMs: check.wallTimeMs,
    stdout: 'capture',
    signal: options.signal,
  });
  const base = {
    group: check.group,
    name: check.name,
    required: check.required,
    wallMs: run.wallTimeMs,
  };
  const { outcome, message } = classifyRun(run);
  if (outcome !== 'passed')
    return { result: { ...base, outcome, message, diff: [] }, ranToEnd: false };
  const expected = await check.expected();
  const got = run.stdout ?? Buffer.alloc(0);
  const diff = expected.equals(got) ? [] : firstDifferences(expected, got);
  const result: TestCaseResult = diff.length
    ? {
        ...base,
        outcome: 'wrong-answer',
        message: `output differs from line ${diff[0]!.line}`,
        diff,
      }
    : { ...base, outcome: 'passed', message: '', diff: [] };
  return { result, ranToEnd: true };
}

/** "7/9 tests passed (1 skipped)" */
function testSummary(results: TestCaseResult[]): string {
  const passed = results.filter((r) => r.outcome === 'passed').length;
  const skipped = results.filter((r) => r.outcome === 'skipped').length;
  return `${passed}/${results.length} tests passed${skipped ? ` (${skipped} skipped)` : ''}`;
}

/**
 * The baseline's output on a generated input (the truth), cached by input and baseline binary, and
 * cross-checked once against the independent reference implementation.
 */
async function baselineOutput(
  options: TestStageOptions,
  inputPath: string,
  inputSha256: string,
): Promise<Buffer> {
  const dir = path.join(options.dataDir, 'expected');
  const file = path.join(dir, `${inputSha256}-${options.baselineSha256.slice(0, 16)}.out`);
  try {
    return await readFile(file);
  } catch {
    // Not computed yet.
  }
  const { limits } = options.challenge.manifest;
  const run = await runProgram({
    sandbox: options.sandbox,
    binary: options.baselineBinary,
    input: inputPath,
    workDir: options.workDir,
    limits,
    wallTimeMs: limits.benchmarkRunSeconds * 1000,
    stdout: 'capture',
  });
  if (classifyRun(run).outcome !== 'passed' || !run.stdout) {
    throw new JudgeError(`the baseline failed on the public input: ${classifyRun(run).message}`);
  }
  const reference = await referenceSha256(
    options.challenge,
    { path: inputPath, sha256: inputSha256, bytes: 0 },
    options.dataDir,
  );
  const got = createHash('sha256').update(run.stdout).digest('hex');
  if (got !== reference) {
    throw new JudgeError(
      'the baseline and the reference implementation disagree on the public input',
    );
  }
  await mkdir(dir, { recursive: true });
  await writeFile(file, run.stdout);
  return run.stdout;
}

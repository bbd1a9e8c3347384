// Judges one patch in a process of its own, for tests that must give the judge a particular process
// context (a session keyring: `keyctl session - node --import tsx tests/helpers/judge-in-child.ts`).
// Usage: judge-in-child.ts PATCH_FILE RESULT_FILE OPTIONS_JSON (TestJudgeOptions without callbacks).
// The judge's log lines go to standard error.
import { readFile, writeFile } from 'node:fs/promises';
import { judgeForTest, type TestJudgeOptions } from './judging';

const [patchFile, resultFile, optionsJson] = process.argv.slice(2);
if (!patchFile || !resultFile) {
  console.error('usage: judge-in-child.ts PATCH_FILE RESULT_FILE [OPTIONS_JSON]');
  process.exit(2);
}
const options = JSON.parse(optionsJson ?? '{}') as TestJudgeOptions;
const result = await judgeForTest(await readFile(patchFile), {
  ...options,
  onLog: (line) => process.stderr.write(`${line}\n`),
});
await writeFile(resultFile, JSON.stringify(result));

// The challenge package contract: what a folder challenges/<slug>/ must hold before
// anything is built. `perfjudge manifest <slug>` and the judge's callers check it, so a copied or
// half-made challenge fails here with every problem named, not after two builds.
//
//   challenges/<slug>/
//     manifest.yaml         validated by contracts/manifest.ts; its `slug` is the folder's name
//     <readme>              the statement contestants read (manifest `readme`)
//     <templateDir>/        what contestants edit; holds every `editableFiles` entry
//     <harnessDir>/         protected: CMakeLists.txt builds one executable named <slug> from the
//                           harness driver and the tree's .cpp files, taking PJ_SOURCE_DIR,
//                           PJ_SOLUTION and PJ_FLAGS (see challenges/wordcount/harness); the
//                           executable reads the input file named by argv[1] and writes to stdout
//     <testsDir>/<group>/   one folder per manifest test group, cases as <kebab-case>.yaml
//     submissions/<verdict>/  example patches judged by tests/integration/self-judge.test.ts
//     code.ts               exports `code`, a ChallengeCode (generator + reference), found by
//                           its folder (lib/core/challenge/challenge-code.ts)
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { VERDICTS, InvalidChallengeError } from '../../../contracts';
import { challengeCode, hasChallengeCode } from './challenge-code';
import { loadEdgeCases } from './edge-cases';
import type { Challenge } from './load-manifest';

/** The CMake variables the judge's build passes to every harness (runner/build/build-tree.ts). */
const HARNESS_VARIABLES = ['PJ_SOURCE_DIR', 'PJ_SOLUTION', 'PJ_FLAGS'];
const GLOB = /[*?[\]{}]/;

async function kind(file: string): Promise<'file' | 'dir' | undefined> {
  const info = await stat(file).catch(() => undefined);
  if (!info) return undefined;
  return info.isDirectory() ? 'dir' : 'file';
}

/** What the harness's CMakeLists.txt must say, or why it does not. */
async function harnessProblems(challenge: Challenge): Promise<string[]> {
  const { slug } = challenge.manifest;
  const cmakeLists = path.join(challenge.harnessDir, 'CMakeLists.txt');
  const text = await readFile(cmakeLists, 'utf8').catch(() => undefined);
  if (text === undefined)
    return [`${cmakeLists} is missing: the judge builds the harness with CMake`];
  const problems: string[] = [];
  const executables = [...text.matchAll(/^\s*add_executable\s*\(\s*([^\s)]+)/gim)].map((m) => m[1]);
  if (!executables.includes(slug))
    problems.push(
      `${cmakeLists} must build an executable named after the slug: add_executable(${slug} …)` +
        (executables.length ? ` (it builds ${executables.join(', ')})` : ' (it builds none)'),
    );
  const missing = HARNESS_VARIABLES.filter((name) => !text.includes(name));
  if (missing.length)
    problems.push(
      `${cmakeLists} must use the judge's build variables: ${missing.join(', ')} unused`,
    );
  return problems;
}

async function folderProblems(challenge: Challenge): Promise<string[]> {
  const { manifest, dir } = challenge;
  const problems: string[] = [];
  const folderName = path.basename(dir);
  if (folderName !== manifest.slug)
    problems.push(
      `manifest.yaml says slug "${manifest.slug}" but the folder is "${folderName}": they must be ` +
        'the same (the web app, the queue and the runners find a challenge by its folder)',
    );
  if ((await kind(path.join(dir, manifest.readme))) !== 'file')
    problems.push(`readme: ${manifest.readme} is not a file in ${dir}`);
  for (const [field, folder] of [
    ['templateDir', challenge.templateDir],
    ['harnessDir', challenge.harnessDir],
    ['testsDir', challenge.testsDir],
  ] as const)
    if ((await kind(folder)) !== 'dir') problems.push(`${field}: ${folder} is not a folder`);
  for (const file of manifest.editableFiles.filter((f) => !GLOB.test(f)))
    if ((await kind(path.join(challenge.templateDir, file))) !== 'file')
      problems.push(`editableFiles: ${file} is not in the template (${challenge.templateDir})`);
  return problems;
}

/** submissions/ is optional; when present, every folder in it is named after a verdict. */
async function submissionProblems(challenge: Challenge): Promise<string[]> {
  const dir = path.join(challenge.dir, 'submissions');
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const verdicts = VERDICTS.filter((v) => v !== 'JUDGE_ERROR').map((v) => v.toLowerCase());
  return entries
    .filter((e) => e.isDirectory() && !verdicts.includes(e.name))
    .map((e) => `submissions/${e.name}/ is not a verdict folder (one of: ${verdicts.join(', ')})`);
}

async function codeProblems(challenge: Challenge): Promise<string[]> {
  const { slug } = challenge.manifest;
  if (!hasChallengeCode(challenge.dir))
    return [
      `no generator or reference implementation for "${slug}": export \`code\` (a ` +
        `ChallengeCode) from challenges/${slug}/code.ts`,
    ];
  let code;
  try {
    code = await challengeCode(challenge.dir);
  } catch (error) {
    return [(error as Error).message];
  }
  if (code.generatorVersion < 1)
    return [`challenges/${slug}/code.ts: generatorVersion must be a positive integer`];
  return [];
}

/** Every way the folder breaks the contract; empty when the challenge can be judged. */
export async function challengePackageProblems(challenge: Challenge): Promise<string[]> {
  const problems = [
    ...(await folderProblems(challenge)),
    ...(await harnessProblems(challenge)),
    ...(await submissionProblems(challenge)),
    ...(await codeProblems(challenge)),
  ];
  // The edge cases are only worth loading from folders that exist.
  if ((await kind(challenge.testsDir)) === 'dir')
    await loadEdgeCases(challenge).catch((error: Error) => problems.push(error.message));
  return problems;
}

/** Throws an InvalidChallengeError listing every problem. */
export async function checkChallengePackage(challenge: Challenge): Promise<void> {
  const problems = await challengePackageProblems(challenge);
  if (problems.length)
    throw new InvalidChallengeError(
      `challenge ${challenge.dir} does not hold a complete challenge package:\n` +
        problems.map((p) => `  - ${p.replace(/\n/g, '\n    ')}`).join('\n'),
    );
}

// A contestant who has only the platform's URL: the challenge page's workflow, the kit downloaded
// into an empty folder outside the repository and built with the workflow's own CMake commands, a
// patch made with `git diff`, the packed CLI installed from the platform into another empty folder
// (and run with `npx <URL>`), the patch judged with it as root from folders of mode 700 and
// submitted with `--wait` to the verdict on both targets, and `status` on it.
// The faster solution is timed with the kit's time.cmake. What check.cmake and time.cmake say for
// the kit as downloaded (the solution is still the baseline) and for a wrong solution (its first
// differing lines) is proven on the same kit by tests/integration/web-downloads.test.ts (built by
// kitArchive, as the download route serves it): repeated here they cost about 12 CPU seconds.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from '@playwright/test';
import {
  contestantWorkflow,
  kitDownloadPath,
  CLI_PACKAGE_PATH,
} from '../../lib/server/kit/workflow';
import { newContestant, signUp } from './support/accounts';
import { keepScreenshot } from './support/screenshots';
import { FAST_PATCH } from './support/submissions';

const execFileAsync = promisify(execFile);

let outside: string;

test.beforeAll(async () => {
  // Outside the repository and its node_modules: nothing of the checkout can be found from here.
  // Mode 700, as mkdtemp makes it: the judge must not need its sandbox user to enter it.
  outside = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-contestant-'));
});

test.afterAll(async () => {
  if (outside) await rm(outside, { recursive: true, force: true });
});

/** A command's exit code and output; never throws. */
async function run(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(command, args, {
      cwd,
      maxBuffer: 64 << 20,
      env: { ...process.env, ...env },
    });
    return { code: 0, output: `${stdout}${stderr}` };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, output: `${e.stdout}${e.stderr}` };
  }
}

test('from the challenge page to a verdict with the kit and the packed CLI only', async ({
  page,
  baseURL,
}, testInfo) => {
  test.setTimeout(20 * 60_000);
  const server = baseURL!;
  const contestant = newContestant('Kit');
  await signUp(page, contestant);

  // 1. The page shows the one workflow, with this platform's URL in its commands.
  await page.goto('/challenges/wordcount');
  const workflow = page.getByTestId('workflow');
  for (const step of contestantWorkflow({ slug: 'wordcount', server }))
    for (const command of step.commands) await expect(workflow).toContainText(command);
  await expect(page.getByRole('link', { name: 'Contestant kit (.tar.gz)' })).toHaveAttribute(
    'href',
    kitDownloadPath('wordcount', 'tar.gz'),
  );
  await workflow.scrollIntoViewIfNeeded();
  await keepScreenshot(page, testInfo, 'challenge-workflow-1280');

  // An API token from the account page, saved where the workflow says.
  await page.goto('/account');
  await page.getByLabel('Token name').fill('kit test');
  await page.getByRole('button', { name: 'Create token' }).click();
  const token = (await page.getByTestId('new-token').innerText()).trim();
  await expect(page.getByRole('status')).toContainText('--token-file ~/.perfjudge-token');
  const tokenFile = path.join(outside, 'token');
  await writeFile(tokenFile, `${token}\n`, { mode: 0o600 });

  // 2. Download the kit into an empty folder, as `curl -fLO` does, and keep it in git.
  const work = path.join(outside, 'work');
  await mkdir(work);
  const kitUrl = `${server}${kitDownloadPath('wordcount', 'tar.gz')}`;
  expect((await run('curl', ['-fsSLO', kitUrl], work)).code).toBe(0);
  expect((await run('tar', ['xzf', 'wordcount-kit.tar.gz'], work)).code).toBe(0);
  const kit = path.join(work, 'wordcount');
  const git = (...args: string[]) =>
    run('git', ['-c', 'user.email=kit@example.com', '-c', 'user.name=kit', ...args], kit);
  await git('init', '-q');
  await git('add', '-A');
  expect((await git('commit', '-qm', 'kit')).code).toBe(0);

  // 3. It builds with the workflow's commands as printed (CMake's default generator; the
  //    integration tier's kit tests build with Ninja).
  const configure = await run('cmake', ['-B', 'build'], kit);
  expect(configure.code, configure.output).toBe(0);
  const built = await run('cmake', ['--build', 'build'], kit);
  expect(built.code, built.output).toBe(0);

  // 4. A faster solution, timed against the baseline by the kit (one pair: the format and that it
  //    no longer says the solution is the baseline), and the patch exactly as the README makes it.
  expect((await git('apply', FAST_PATCH)).code).toBe(0);
  const timed = await run('cmake', ['-DRUNS=1', '-P', 'time.cmake'], kit);
  expect(timed.code, timed.output).toBe(0);
  expect(timed.output).toMatch(/speedup \d+\.\d{3}x \(median of 1 pairwise ratios/);
  expect(timed.output).not.toContain('still the baseline');
  await git('add', '-A');
  const diff = await run('sh', ['-c', 'git diff --cached > my.patch'], kit);
  expect(diff.code).toBe(0);

  // 5. The CLI, installed from the platform into another empty folder.
  const cliDir = path.join(outside, 'cli');
  await mkdir(cliDir);
  const install = await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefix', cliDir, `${server}${CLI_PACKAGE_PATH}`],
    cliDir,
  );
  expect(install.code, install.output).toBe(0);
  const perfjudge = path.join(cliDir, 'node_modules/.bin/perfjudge');
  // `npx <URL>` runs it without installing, from yet another empty folder.
  const npxDir = path.join(outside, 'npx');
  await mkdir(npxDir);
  const viaNpx = await run(
    'npx',
    ['--yes', `${server}${CLI_PACKAGE_PATH}`, 'status', '--help'],
    npxDir,
  );
  expect(viaNpx.code, viaNpx.output).toBe(0);
  expect(viaNpx.output).toContain('Usage: perfjudge status');
  const cliEnv = {
    PERFJUDGE_DATA_DIR: path.join(outside, 'cli-data'),
    // A lock of its own: the platform's runners hold theirs while they judge.
    PERFJUDGE_HOST_LOCK: path.join(outside, 'judging.lock'),
  };

  // 6. Judged locally, the server's way (tiny inputs and few pairs: development mode). A judge
  //    that finds its CPU busy refuses rather than time unfairly, and the contestant runs it again
  //    (docs/judging.md, "How the judge guards against noise"); on a loaded CI host so does this.
  const judgeLocally = () =>
    run(
      perfjudge,
      [
        'judge',
        '--challenge',
        'wordcount',
        '--patch',
        'my.patch',
        '--input-size',
        '1MiB',
        '--public-size',
        '256KiB',
        '--runs',
        '3',
        // docs/contestants.md's quicker loop: cachegrind's rebuild and runs were about half of this
        // judging; the judge's cachegrind is tested in tests/integration (cachegrind, measurement-depth).
        '--no-cachegrind',
        '--quiet',
      ],
      kit,
      cliEnv,
    );
  let judged = await judgeLocally();
  for (let again = 0; again < 2 && /the judge host was too busy/.test(judged.output); again++)
    judged = await judgeLocally();
  expect(judged.output).toContain('ACCEPTED');
  expect(judged.output).toMatch(/Speedup \d+\.\d{3}×/);
  expect(judged.code, judged.output).toBe(0);

  // 7. Submitted with --wait: the judging followed to its verdict.
  const submitted = await run(
    perfjudge,
    [
      'submit',
      '--server',
      server,
      '--token-file',
      tokenFile,
      '--challenge',
      'wordcount',
      '--wait',
      'my.patch',
    ],
    kit,
    cliEnv,
  );
  expect(submitted.code, submitted.output).toBe(0);
  expect(submitted.output).toMatch(/Submission \S+: ACCEPTED, score \d+\.\d{3}/);
  expect(submitted.output).toMatch(/linux-intel\s+ACCEPTED\s+speedup \d+\.\d{3}×/);
  expect(submitted.output).toMatch(/windows-amd\s+ACCEPTED\s+speedup \d+\.\d{3}×/);
  const id = /Submission (\S+):/.exec(submitted.output)![1]!;
  const status = await run(
    perfjudge,
    ['status', '--server', server, '--token-file', tokenFile, id],
    kit,
    cliEnv,
  );
  expect(status.code, status.output).toBe(0);
  expect(status.output).toContain(`Submission ${id}: ACCEPTED`);
});

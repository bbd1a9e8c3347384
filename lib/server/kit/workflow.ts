// The contestant's one workflow (install the CLI, download the kit, build, check, time, make the
// patch, judge locally, submit), with every command spelled once: the kit's README, the challenge
// page and the account page all print these steps, so they cannot disagree.

/** Where the platform serves the packaged CLI (app/downloads/[file]/route.ts). */
export const CLI_PACKAGE_PATH = '/downloads/perfjudge-cli.tgz';

/** The file a contestant keeps their API token in (the account page writes this name too). */
export const TOKEN_FILE = '~/.perfjudge-token';

export type KitArchiveFormat = 'tar.gz' | 'zip';

/** `<slug>-kit.<ext>`: one folder `<slug>/` holding the kit. */
export function kitArchiveName(slug: string, format: KitArchiveFormat): string {
  return `${slug}-kit.${format}`;
}

export function kitDownloadPath(slug: string, format: KitArchiveFormat): string {
  return `/challenges/${slug}/download/${kitArchiveName(slug, format)}`;
}

export interface WorkflowStep {
  id: 'install' | 'download' | 'build' | 'check' | 'time' | 'patch' | 'judge' | 'submit';
  title: string;
  /** One or two sentences of plain text. */
  text: string;
  commands: string[];
}

export interface WorkflowOptions {
  slug: string;
  /** The platform's public URL, without a trailing slash. */
  server: string;
}

/** The submit command, as everything prints it. */
export function submitCommand(server: string, slug: string, patch = 'my.patch'): string {
  return `perfjudge submit --server ${server} --token-file ${TOKEN_FILE} --challenge ${slug} --wait ${patch}`;
}

export function contestantWorkflow({ slug, server: rawServer }: WorkflowOptions): WorkflowStep[] {
  const server = rawServer.replace(/\/+$/, '');
  const tarGz = kitArchiveName(slug, 'tar.gz');
  return [
    {
      id: 'install',
      title: 'Install the perfjudge command line and check this machine',
      text:
        'Needs Node.js 20.19 or newer (the kit itself does not). `perfjudge doctor` says which of ' +
        "the judge's requirements this machine meets (compiler, CMake, Ninja, sandbox, perf, valgrind) " +
        'and how to get the rest. `npx <the same URL> doctor` works without installing.',
      commands: [`npm install -g ${server}${CLI_PACKAGE_PATH}`, 'perfjudge doctor'],
    },
    {
      id: 'download',
      title: 'Download the kit and keep it in git',
      text:
        `The kit holds the template you edit, the judge's protected harness, the edge-case tests ` +
        `and the public input (on Windows take the .zip: ${server}${kitDownloadPath(slug, 'zip')}).`,
      commands: [
        `curl -fLO ${server}${kitDownloadPath(slug, 'tar.gz')}`,
        `tar xzf ${tarGz} && cd ${slug}`,
        'git init -q && git add -A && git commit -qm kit',
      ],
    },
    {
      id: 'build',
      title: 'Build the baseline and your solution',
      text:
        'Linux: CMake 3.16+ and a C++17 compiler (the Linux target uses clang++). Windows: in a ' +
        'Developer PowerShell for Visual Studio, `cmake -B build -G Ninja -DCMAKE_CXX_COMPILER=clang-cl` ' +
        '(or cl). Your solution goes in the `#ifdef SOLUTION` branch, which starts as a copy of the ' +
        'baseline: a fresh kit builds, checks and times (about 1.0×) before you change anything.',
      commands: ['cmake -B build && cmake --build build'],
    },
    {
      id: 'check',
      title: 'Check it',
      text:
        'Runs every edge case and the public input, byte for byte, and prints the first differing ' +
        'lines; it builds first. `cmake -DONLY=binary -P check.cmake` runs one group of cases.',
      commands: ['cmake -P check.cmake'],
    },
    {
      id: 'time',
      title: 'Time it',
      text:
        'Baseline and solution alternately, after a warm-up each, on the public input; prints the ' +
        'median ratio. `cmake -DINPUT=file -DRUNS=9 -P time.cmake` for another input or more pairs.',
      commands: ['cmake -P time.cmake'],
    },
    {
      id: 'patch',
      title: 'Make the patch',
      text:
        'Only your source files may change (the README lists them); a patch touching the harness, ' +
        'the tests or the kit is rejected.',
      commands: ['git add -A && git diff --cached > my.patch'],
    },
    {
      id: 'judge',
      title: 'Judge it locally, exactly as the server does',
      text:
        'Sandboxed build, the tests, alternating timed runs and the speedup with its 95% interval, ' +
        'on this machine (Linux with bubblewrap). Where the sandbox is missing it says so and refuses.',
      commands: [`perfjudge judge --challenge ${slug} --patch my.patch`],
    },
    {
      id: 'submit',
      title: 'Submit it',
      text:
        `Create an API token on ${server}/account and save it in ${TOKEN_FILE}; --wait follows the ` +
        'judging until the verdict. Or upload the patch on the challenge page.',
      commands: [submitCommand(server, slug)],
    },
  ];
}

/** The workflow as a Markdown section (the kit's README opens with it). */
export function workflowMarkdown(steps: WorkflowStep[]): string {
  const parts = steps.map(
    (step, i) =>
      `${i + 1}. **${step.title}.** ${step.text}\n\n   \`\`\`sh\n${step.commands
        .map((c) => `   ${c}`)
        .join('\n')}\n   \`\`\``,
  );
  return `## How to work\n\n${parts.join('\n\n')}\n`;
}

// One spelling of every contestant command: the workflow (lib/server/kit/workflow.ts) is what the kit's
// README, the challenge page, the account page and the CLI's help print, and no document spells a
// submit command any other way.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lib/core/config/env';
import { contestantWorkflow, submitCommand } from '../../lib/server/kit/workflow';

async function documents(dir: string, out: string[] = []): Promise<string[]> {
  for (const e of await readdir(path.join(REPO_ROOT, dir), { withFileTypes: true })) {
    if (
      ['node_modules', '.data', '.next', 'test-results', 'tests'].includes(e.name) ||
      e.name.startsWith('.next')
    )
      continue;
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) await documents(rel, out);
    else if (/\.(md|tsx)$/.test(e.name)) out.push(rel);
  }
  return out;
}

describe('the contestant workflow', () => {
  const steps = contestantWorkflow({ slug: 'wordcount', server: 'https://contest.example.org/' });

  it('goes install, download, build, check, time, patch, judge, submit, with doctor first', () => {
    expect(steps.map((s) => s.id)).toEqual([
      'install',
      'download',
      'build',
      'check',
      'time',
      'patch',
      'judge',
      'submit',
    ]);
    expect(steps[0]!.commands).toEqual([
      'npm install -g https://contest.example.org/downloads/perfjudge-cli.tgz',
      'perfjudge doctor',
    ]);
    expect(steps.at(-1)!.commands).toEqual([
      submitCommand('https://contest.example.org', 'wordcount'),
    ]);
  });

  it('no README or page spells the submit command differently', async () => {
    const odd: string[] = [];
    for (const file of await documents('.')) {
      const text = await readFile(path.join(REPO_ROOT, file), 'utf8');
      for (const m of text.matchAll(/perfjudge submit [^`\n]*/g))
        if (
          !/^perfjudge submit --server \S+ --token-file \S+ (--challenge \S+ --wait \S+|…)/.test(
            m[0],
          )
        )
          odd.push(`${file}: ${m[0]}`);
    }
    expect(odd).toEqual([]);
  });
});

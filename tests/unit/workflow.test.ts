// The contestant workflow (lib/server/kit/workflow.ts): what the kit's README, the challenge page, the
// account page and the CLI's help print, in order, with the platform's URL in its commands.
import { describe, expect, it } from 'vitest';
import { contestantWorkflow } from '../../lib/server/kit/workflow';

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
    // The server's URL without its trailing slash, the challenge and the patch the step before made.
    expect(steps.at(-1)!.commands).toEqual([
      'perfjudge submit --server https://contest.example.org --token-file ~/.perfjudge-token --challenge wordcount --wait my.patch',
    ]);
  });
});

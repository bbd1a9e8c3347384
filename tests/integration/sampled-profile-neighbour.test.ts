// A sampled profile taken while another judging's program runs on the same CPU, at the timed runs'
// path /judge/program, from another binary, and is still running when the recording ends (a loaded
// CI host: two test files judging at once). perf used to read that neighbour's build-id for
// "/judge/program" and apply it to the judged program: its frames came out unnamed by perf and, with
// the neighbour's binary in ~/.debug, unwound through the wrong tables ("[unknown address]", no
// main). The profile run's own path and --no-buildid keep the two apart.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SampledProfile } from '../../contracts';
import { ensureInput } from '../../lib/core/challenge/inputs';
import { cachedBuild } from '../../runner/build';
import { profileMemory } from '../../runner/measure/memory-profile';
import { profiledProgramPath, recordProfile } from '../../runner/measure/perf-record';
import { findPerf } from '../../runner/measure/perf-stat';
import { createSandbox } from '../../runner/sandbox';
import { runProgram } from '../../runner/sandbox/run-program';
import { TEST_DATA_DIR, wordcountChallenge } from '../helpers/judging';

const sandbox = createSandbox('bubblewrap');
let work: string;

beforeAll(async () => {
  work = await mkdtemp(path.join(TEST_DATA_DIR, 'neighbour-'));
});

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('sampled profile beside another program at /judge/program', () => {
  it('names and unwinds the judged program from its own binary', async () => {
    const perf = await findPerf();
    expect(perf, 'perf is installed on the machines this project is tested on').not.toBeNull();
    const challenge = await wordcountChallenge();
    const { toolchain } = challenge.manifest.targets['linux-intel']!;
    const build = async (flags: string[]) => {
      const built = await cachedBuild({
        challenge,
        sourceDir: challenge.templateDir,
        toolchain: { ...toolchain, flags },
        solution: false,
        cacheRoot: path.join(TEST_DATA_DIR, 'builds'),
      });
      expect(built.binary, built.log).toBeTruthy();
      return built.binary!;
    };
    const judged = await build(toolchain.flags);
    // Another binary (other flags, so another build-id) for the neighbour.
    const neighbourBinary = await build(['-O1', '-std=c++17', '-DNDEBUG']);
    const input = await ensureInput(
      challenge,
      { seed: 'test-neighbour', sizeBytes: 8 << 20, rareSeparators: false },
      TEST_DATA_DIR,
    );
    // The neighbour's runs are long, so that one is alive when the recording ends.
    const neighbourInput = await ensureInput(
      challenge,
      { seed: 'test-neighbour-long', sizeBytes: 48 << 20, rareSeparators: false },
      TEST_DATA_DIR,
    );
    const cpu = os.cpus().length - 1;
    const { limits } = challenge.manifest;
    let stop = false;
    const neighbour = (async () => {
      while (!stop)
        await runProgram({
          sandbox,
          binary: neighbourBinary,
          input: neighbourInput.path,
          workDir: work,
          limits,
          wallTimeMs: 60_000,
          stdout: 'hash',
          cpu,
        });
    })();
    let profile: SampledProfile;
    try {
      // Started after the neighbour, ended while it still runs.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const programInside = profiledProgramPath();
      ({ profile } = await recordProfile({
        perf: perf!,
        cpu,
        dir: work,
        binary: judged,
        programInside,
        run: async () =>
          (
            await profileMemory({
              sandbox,
              binary: judged,
              programInside,
              input: input.path,
              workDir: work,
              limits,
              cpu,
            })
          ).run,
      }));
    } finally {
      stop = true;
      await neighbour;
    }
    expect(profile.samples).toBeGreaterThan(20);
    const frames = profile.stacks.flatMap((s) => s.frames);
    expect(frames).toContain('main');
    // Named by perf from the judged binary itself (the nm fallback names it with its arguments).
    expect(frames).toContain('wordcount');
  }, 600_000);
});

// The platform registry's picks (runner/platform/index.ts) on this Linux host: the target a
// command defaults to, and the target the noise probe may time in the host's own sandbox.
import { describe, expect, it } from 'vitest';
import { loadChallenge } from '../../lib/core/challenge/load-manifest';
import { hostSandboxTarget, nativeTarget } from '../../runner/platform';

describe('the platform registry', () => {
  it("defaults to the first target of this host's OS, and says which OS it looked for", async () => {
    const { targets } = (await loadChallenge('wordcount')).manifest;
    expect(process.platform).toBe('linux');
    expect(nativeTarget(targets)).toEqual({ os: 'linux', id: 'linux-intel' });
    expect(nativeTarget({ 'windows-amd': targets['windows-amd']! })).toEqual({
      os: 'linux',
      id: undefined,
    });
  });

  it("times the noise probe on a target the host's sandbox runs natively, never a Windows one", async () => {
    const { targets } = (await loadChallenge('wordcount')).manifest;
    expect(hostSandboxTarget(targets)).toBe(targets['linux-intel']);
    expect(hostSandboxTarget({ 'windows-amd': targets['windows-amd']! })).toBeUndefined();
  });
});

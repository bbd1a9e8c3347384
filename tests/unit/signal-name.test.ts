import { describe, expect, it } from 'vitest';
import { signalName } from '../../runner/sandbox/result';

describe('signalName', () => {
  it('gives each signal its usual name, never an alias (SIGABRT, not SIGIOT)', () => {
    expect(signalName(6)).toBe('SIGABRT');
    expect(signalName(9)).toBe('SIGKILL');
    expect(signalName(11)).toBe('SIGSEGV');
    expect(signalName(99)).toBe('SIG99');
  });
});

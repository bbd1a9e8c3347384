// The one rule of whether a contest takes submissions, shown alike by the intake and the console.
import { describe, expect, it } from 'vitest';
import { contestDeadline, contestState } from '../../lib/core/challenge/contest-state';

const now = new Date('2026-12-05T12:00:00Z');
const past = new Date('2026-12-01T00:00:00Z');
const future = new Date('2026-12-31T00:00:00Z');

describe('contestState', () => {
  it('is open before the deadline, and with none', () => {
    expect(contestState({ closedAt: null, deadline: future }, now)).toEqual({
      state: 'open',
      closedReason: null,
    });
    expect(contestState({ closedAt: null, deadline: null }, now).state).toBe('open');
  });

  it('is closed once the organizers close it, whatever the deadline says', () => {
    const closed = contestState({ closedAt: past, deadline: future }, now);
    expect(closed.state).toBe('closed');
    expect(closed.closedReason).toMatch(/organizers closed/);
  });

  it('takes nothing from the deadline on', () => {
    expect(contestState({ closedAt: null, deadline: now }, now).state).toBe('deadline-passed');
  });
});

describe('contestDeadline', () => {
  it("is the organizer's when set, else the manifest's", () => {
    const manifest = { deadline: '2026-12-20T00:00:00Z' };
    expect(contestDeadline(future, manifest)).toEqual(future);
    expect(contestDeadline(null, manifest)).toEqual(new Date(manifest.deadline));
    expect(contestDeadline(null, {})).toBeNull();
  });
});

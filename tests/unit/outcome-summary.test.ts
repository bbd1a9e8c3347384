import { describe, expect, it } from 'vitest';
import { summarizeOutcome, type TargetOutcome } from '../../lib/server/web/outcome-summary';

const accepted: TargetOutcome = {
  target: 'linux-intel',
  status: 'DONE',
  verdict: 'ACCEPTED',
  message: null,
  speedup: 1.17,
  ciLow: 1.1,
  ciHigh: 1.25,
};

describe('summarizeOutcome', () => {
  it('names the failing target and why first, then what the others did', () => {
    expect(
      summarizeOutcome([
        accepted,
        {
          ...accepted,
          target: 'windows-amd',
          verdict: 'BUILD_ERROR',
          message: "wordcount.cpp:3: error: expected ';'\nmore",
          speedup: null,
        },
      ]),
    ).toBe(
      "Build error on windows-amd (wordcount.cpp:3: error: expected ';'); accepted on linux-intel, 1.17× (1.10–1.25).",
    );
  });

  it('says nothing when every finished target is accepted', () => {
    expect(summarizeOutcome([accepted, { ...accepted, target: 'windows-amd' }])).toBeNull();
    expect(summarizeOutcome([{ ...accepted, status: 'JUDGING', verdict: null }])).toBeNull();
  });

  it('mentions targets still judging or not judged', () => {
    expect(
      summarizeOutcome([
        { ...accepted, verdict: 'WRONG_ANSWER', message: null },
        { ...accepted, target: 'windows-amd', status: 'CANCELLED', verdict: null },
      ]),
    ).toBe('Wrong answer on linux-intel; not judged on windows-amd.');
  });
});

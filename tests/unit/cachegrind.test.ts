// cachegrind's argv, the parsing and arithmetic of cachegrind.out files recorded here, the failure
// classification, and the deterministic flags.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  cachegrindCountsSchema,
  deterministicSchema,
  hotspotsSchema,
  type Toolchain,
} from '../../contracts';
import {
  CachegrindError,
  cachegrindArgs,
  deterministicFlagsFor,
  deterministicResult,
  describeFailure,
  instructionSpeedup,
  parseCachegrindFunctions,
  parseCachegrindOut,
  parseCachegrindSummary,
} from '../../runner/measure/cachegrind';
import type { SandboxResult } from '../../runner/sandbox';

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'cachegrind');
const fixture = (name: string): Promise<string> => readFile(path.join(FIXTURES, name), 'utf8');

const HEADER = 'cmd: ./x\nevents: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim\n';

function expectError(fn: () => unknown, kind: string, message: RegExp): void {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(CachegrindError);
    expect((error as CachegrindError).kind).toBe(kind);
    expect((error as CachegrindError).message).toMatch(message);
    return;
  }
  throw new Error('expected a CachegrindError');
}

describe('cachegrindArgs', () => {
  it('simulates caches and branches with a pinned geometry and writes where told', () => {
    expect(
      cachegrindArgs('/usr/bin/valgrind', '/run/cg.out', ['/judge/program', 'in.txt']),
    ).toEqual([
      '/usr/bin/valgrind',
      '--tool=cachegrind',
      '--cache-sim=yes',
      '--branch-sim=yes',
      '--I1=32768,8,64',
      '--D1=32768,8,64',
      '--LL=8388608,16,64',
      '--cachegrind-out-file=/run/cg.out',
      '--',
      '/judge/program',
      'in.txt',
    ]);
  });

  it("can leave the geometry to the host's CPUID and send valgrind's messages to a log file", () => {
    const args = cachegrindArgs('valgrind', 'o', ['p'], { cache: null, logFile: '/run/vg.log' });
    expect(args.some((a) => /^--(I1|D1|LL)=/.test(a))).toBe(false);
    expect(args).toContain('--log-file=/run/vg.log');
    expect(args.slice(-2)).toEqual(['--', 'p']);
  });
});

describe('parseCachegrindOut on recorded files', () => {
  it('reads the wordcount baseline: each figure worked out by hand from the summary line', async () => {
    // summary: Ir 82557318, I1mr 2478, ILmr 2240, Dr 22793722, D1mr 525772, DLmr 7634,
    //          Dw 12908900, D1mw 96686, DLmw 76437, Bc 15236481, Bcm 730561, Bi 1568516, Bim 326155
    const counts = parseCachegrindOut(await fixture('wordcount-baseline.cachegrind.out'));
    expect(counts).toEqual({
      instructions: 82_557_318,
      dataReads: 22_793_722,
      dataWrites: 12_908_900,
      l1InstructionMisses: 2_478,
      l1DataMisses: 622_458, // 525772 + 96686
      llMisses: 86_311, // 2240 + 7634 + 76437
      branches: 16_804_997, // 15236481 + 1568516
      branchMispredictions: 1_056_716, // 730561 + 326155
      // 82557318 + 10 × (2478 + 622458 + 1056716) + 100 × 86311 = 82557318 + 16816520 + 8631100
      estimatedCycles: 108_004_938,
    });
    expect(cachegrindCountsSchema.parse(counts)).toEqual(counts);
  });

  it('names the missing events of a file recorded without --branch-sim=yes', async () => {
    const text = await fixture('wordcount-no-branch-sim.cachegrind.out');
    expect(parseCachegrindSummary(text).get('Ir')).toBe(82_557_318n);
    expectError(
      () => parseCachegrindOut(text),
      'bad-output',
      /lacks the events Bc Bcm Bi Bim.*branch-sim/,
    );
  });

  it('refuses a file without a summary line', async () => {
    const text = await fixture('truncated.cachegrind.out');
    expectError(() => parseCachegrindOut(text), 'bad-output', /no "summary:" line/);
  });
});

describe('parseCachegrindOut on malformed input', () => {
  it('refuses an empty file or one without an events line', () => {
    expectError(() => parseCachegrindOut(''), 'bad-output', /no "events:" line/);
    expectError(() => parseCachegrindOut('summary: 1 2 3\n'), 'bad-output', /no "events:" line/);
  });

  it('refuses a count that is not a number', () => {
    const text = `${HEADER}summary: 10 1 1 5 1 1 5 1 1 3 x 1 0\n`;
    expectError(() => parseCachegrindOut(text), 'bad-output', /count "x" of Bcm/);
  });

  it('refuses more counts than events', () => {
    const text = `${HEADER}summary: 1 1 1 1 1 1 1 1 1 1 1 1 1 1\n`;
    expectError(() => parseCachegrindOut(text), 'bad-output', /14 counts for 13 events/);
  });

  it('refuses two profiles in one file (two processes wrote it)', () => {
    const one = `${HEADER}summary: 1 1 1 1 1 1 1 1 1 1 1 1 1\n`;
    expectError(() => parseCachegrindOut(one + one), 'bad-output', /two "events:" lines.*fork/);
    expectError(
      () => parseCachegrindOut(`${one}summary: 2 2\n`),
      'bad-output',
      /two "summary:" lines/,
    );
  });

  it('refuses a count too large for a double to hold exactly', () => {
    const text = `${HEADER}summary: 9007199254740993 0 0 0 0 0 0 0 0 0 0 0 0\n`;
    expectError(() => parseCachegrindOut(text), 'bad-output', /Ir = 9007199254740993 is too large/);
  });

  it('reads "." as zero and missing trailing counts as zero, as the format allows', () => {
    const text = `${HEADER}summary: 100 . 1 40 2 . 20 3 1\n`;
    expect(parseCachegrindOut(text)).toEqual({
      instructions: 100,
      dataReads: 40,
      dataWrites: 20,
      l1InstructionMisses: 0,
      l1DataMisses: 5,
      llMisses: 2,
      branches: 0,
      branchMispredictions: 0,
      estimatedCycles: 100 + 10 * 5 + 100 * 2,
    });
  });

  it('finds events by name, whatever their order, ignoring desc, fl, fn and count lines', () => {
    const text =
      'desc: I1 cache: 32768 B, 64 B, 8-way associative\ncmd: p\n' +
      'events: Bim Bi Bcm Bc DLmw D1mw Dw DLmr D1mr Dr ILmr I1mr Ir\n' +
      'fl=a.c\nfn=main\n1 5 5 5\nsummary: 1 2 3 4 5 6 7 8 9 10 11 12 1000\n';
    const counts = parseCachegrindOut(text);
    expect(counts.instructions).toBe(1000);
    expect(counts.l1InstructionMisses).toBe(12);
    expect(counts.branchMispredictions).toBe(1 + 3);
    expect(counts.llMisses).toBe(11 + 8 + 5);
    expect(counts.estimatedCycles).toBe(1000 + 10 * (12 + 9 + 6 + 3 + 1) + 100 * (11 + 8 + 5));
  });
});

const toolchain: Toolchain = {
  kind: 'clang',
  cxx: 'clang++',
  flags: ['-O3', '-march=native', '-std=c++17'],
};

describe('deterministicFlagsFor', () => {
  it("uses the manifest's deterministic flags when it has them", () => {
    const flags = ['-O3', '-march=x86-64-v3', '-std=c++17', '-g'];
    expect(deterministicFlagsFor({ ...toolchain, deterministicFlags: flags })).toEqual(flags);
  });

  it('otherwise replaces -march=native with x86-64-v3 (AVX2, no AVX-512) and keeps the rest', () => {
    expect(deterministicFlagsFor(toolchain)).toEqual(['-O3', '-march=x86-64-v3', '-std=c++17']);
    expect(deterministicFlagsFor({ ...toolchain, flags: ['-O2'] })).toEqual(['-O2']);
  });
});

describe('instructionSpeedup and deterministicResult', () => {
  const counts = (instructions: number) =>
    cachegrindCountsSchema.parse({
      instructions,
      dataReads: 0,
      dataWrites: 0,
      l1InstructionMisses: 0,
      l1DataMisses: 0,
      llMisses: 0,
      branches: 0,
      branchMispredictions: 0,
      estimatedCycles: instructions,
    });

  it('is baseline instructions over solution instructions', () => {
    expect(instructionSpeedup(counts(1000), counts(250))).toBe(4);
    expect(instructionSpeedup(counts(100), counts(200))).toBe(0.5);
  });

  it('refuses a zero instruction count', () => {
    expect(() => instructionSpeedup(counts(100), counts(0))).toThrow(RangeError);
  });

  it('fills the contract', () => {
    const result = deterministicResult({
      inputBytes: 4 << 20,
      flags: ['-O3'],
      baseline: counts(300),
      solution: counts(100),
    });
    expect(deterministicSchema.parse(result)).toEqual(result);
    expect(result.instructionSpeedup).toBe(3);
  });
});

describe('describeFailure', () => {
  const clean: SandboxResult = {
    exitCode: 0,
    signal: null,
    limitExceeded: null,
    wallTimeMs: 1000,
    userTimeMs: 900,
    sysTimeMs: 10,
    maxRssBytes: 1 << 26,
    minorFaults: 0,
    majorFaults: 0,
    voluntaryContextSwitches: 0,
    involuntaryContextSwitches: 0,
    stdoutBytes: 0,
    stdoutSha256: '',
    stderr: '',
    stderrBytes: 0,
  };
  // What valgrind 3.19 logged here for a program executing `vpxord %zmm0, %zmm0, %zmm0`.
  const sigillLog = [
    'vex amd64->IR: unhandled instruction bytes: 0x62 0xF1 0x7D 0x48 0xEF 0xC0 0xC5 0xF9 0x7E 0xC6',
    'vex amd64->IR:   REX=0 REX.W=0 REX.R=0 REX.X=0 REX.B=0',
    '==2== valgrind: Unrecognised instruction at address 0x109141.',
    '==2== Process terminating with default action of signal 4 (SIGILL)',
  ].join('\n');

  it('accepts a clean exit', () => {
    expect(describeFailure(clean, '')).toBeNull();
  });

  it('recognises an instruction valgrind cannot decode and suggests the deterministic flags', () => {
    const error = describeFailure({ ...clean, exitCode: null, signal: 'SIGILL' }, sigillLog);
    expect(error?.kind).toBe('unsupported-instruction');
    expect(error?.message).toMatch(/bytes 0x62 0xF1 0x7D 0x48 0xEF 0xC0\).*deterministicFlags/);
  });

  it("falls back to stderr when there is no log, and reports a crash with the log's last words", () => {
    expect(describeFailure({ ...clean, signal: 'SIGILL', stderr: sigillLog }, null)?.kind).toBe(
      'unsupported-instruction',
    );
    const crash = describeFailure(
      { ...clean, exitCode: null, signal: 'SIGSEGV' },
      '==7== Process terminating with default action of signal 11 (SIGSEGV)\n==7== \n',
    );
    expect(crash?.kind).toBe('program-failed');
    expect(crash?.message).toBe(
      'the program was killed by SIGSEGV under valgrind: Process terminating with default action of signal 11 (SIGSEGV)',
    );
    expect(describeFailure({ ...clean, exitCode: 3 }, '')?.message).toBe(
      'the program exited with code 3 under valgrind',
    );
  });

  it('reports a limit', () => {
    const error = describeFailure(
      { ...clean, exitCode: null, signal: 'SIGKILL', limitExceeded: 'time', wallTimeMs: 120_000 },
      '',
    );
    expect(error?.kind).toBe('limit');
    expect(error?.message).toBe('the program did not finish within 120 s under valgrind');
  });
});

describe('parseCachegrindFunctions', () => {
  it('sums each function of the recorded baseline over its lines', async () => {
    const hotspots = parseCachegrindFunctions(await fixture('wordcount-baseline.cachegrind.out'));
    expect(hotspotsSchema.parse(hotspots)).toEqual(hotspots);
    expect(hotspots.functions.map((f) => f.name)).toEqual([
      '__libc_start_main@@GLIBC_2.34',
      '(below main)',
    ]);
    // Ir of the first function's lines: 2+3+6+1+2+3+2+15+8+11+3+3+6+2+2+2+2+4.
    expect(hotspots.functions[0]).toMatchObject({
      instructions: 77,
      file: './csu/../csu/libc-start.c',
    });
    expect(hotspots.totalInstructions).toBe(77 + 25);
  });

  it('counts inlined code (fi=/fe=) toward the function it ran in, merges a name across files', () => {
    const text =
      HEADER +
      'fl=a.cpp\nfn=count(std::string)\n1 10 0 0 0 2 1 0 1 1 0 3 0 0\n' +
      'fi=hash.hpp\n7 100 . . . 5 . . . 2 . 4\nfe=a.cpp\n2 5\n' +
      'fl=b.cpp\nfn=main\n3 7\n' +
      'fl=c.cpp\nfn=count(std::string)\n9 1\n' +
      'summary: 123 0 0 0 7 1 0 1 3 0 7 0 0\n';
    const hotspots = parseCachegrindFunctions(text, 1);
    expect(hotspots.functions).toEqual([
      {
        name: 'count(std::string)',
        file: 'a.cpp',
        instructions: 116,
        l1DataMisses: 2 + 1 + 5,
        llDataMisses: 1 + 1 + 2,
        branchMispredictions: 7,
      },
    ]);
    expect(hotspots.functionCount).toBe(2);
    expect(hotspots.totalInstructions).toBe(123);
  });
});

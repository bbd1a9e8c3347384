// Folding `perf script` output into stacks, and the perf record command line (no perf runs here).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampledProfileSchema } from '../../contracts';
import {
  deviceName,
  frameName,
  parseNm,
  perfRecordArgs,
  SAMPLING_HZ,
  samplingHz,
  StackFolder,
  symbolAt,
  TARGET_SAMPLES,
} from '../../runner/measure/perf-record';

const FIXTURE = path.join(__dirname, '../fixtures/perf/perf-script-wordcount.txt');

async function fold(comm: string) {
  const folder = new StackFolder(comm);
  for (const line of (await readFile(FIXTURE, 'utf8')).split('\n')) folder.line(line);
  return folder.profile('cpu-clock');
}

describe('StackFolder', () => {
  it("keeps the program's samples only, outermost frame first", async () => {
    const profile = await fold('program');
    expect(sampledProfileSchema.parse(profile)).toEqual(profile);
    // 17 samples of "program" in the fixture; bwrap's, taskset's and the idle task's are dropped.
    expect(profile.samples).toBe(17);
    expect(profile.stacks.reduce((n, s) => n + s.samples, 0)).toBe(17);
    const deep = profile.stacks.find((s) => s.frames.includes('wordcount'))!;
    // DWARF unwinding stops in libc's start-up code (libc has no unwind info past it).
    expect(deep.frames[0]).toBe('__libc_start_call_main');
    expect(deep.frames.indexOf('main')).toBeLessThan(deep.frames.indexOf('wordcount'));
    expect(profile.stacks.flatMap((s) => s.frames)).toContain(
      'std::operator>><char, std::char_traits<char>, std::allocator<char> >',
    );
  });

  it('keeps a profile of long names small, counting the stacks it leaves out', () => {
    const folder = new StackFolder('p');
    for (let i = 0; i < 1000; i++) {
      folder.line('p 1');
      for (let depth = 0; depth < 5; depth++)
        folder.line(`\t1 f${i}_${depth}${'x'.repeat(300)} (/judge/program)`);
      folder.line('');
    }
    const profile = folder.profile('cpu-clock');
    const chars = profile.stacks.flatMap((s) => s.frames).join('').length;
    expect(chars).toBeLessThanOrEqual(256 * 1024);
    expect(profile.stacks.length).toBeGreaterThan(100);
    expect(profile.otherSamples).toBe(1000 - profile.stacks.length);
  });

  it('orders stacks by samples and counts what it leaves out', async () => {
    const folder = new StackFolder('p');
    for (let i = 0; i < 2100; i++) {
      folder.line(`p 1`);
      folder.line(`\t1 leaf${i} (/judge/program)`);
      folder.line(`\t2 main (/judge/program)`);
      folder.line('');
    }
    folder.line('p 1');
    folder.line('\t1 leaf7 (/judge/program)');
    folder.line('\t2 main (/judge/program)');
    const profile = folder.profile('cycles');
    expect(profile.samples).toBe(2101);
    expect(profile.stacks).toHaveLength(2000);
    expect(profile.stacks[0]).toEqual({ frames: ['main', 'leaf7'], samples: 2 });
    expect(profile.otherSamples).toBe(100);
  });
});

describe('frameName', () => {
  it('names a frame by its symbol, its file when perf could not, and marks the kernel', () => {
    expect(frameName('2c41 std::map<int, int>::operator[] (/judge/program)')).toBe(
      'std::map<int, int>::operator[]',
    );
    expect(frameName('98109 _int_malloc (/usr/lib/x86_64-linux-gnu/libc.so.6)')).toBe(
      '_int_malloc',
    );
    expect(frameName('2c41 [unknown] (/judge/program)')).toBe('[unknown in program]');
    expect(frameName('7f4a558bb8a8 [unknown] ([unknown])')).toBe('[unknown address]');
    expect(frameName('ffffffff81000c82 asm_exc_page_fault ([kernel.kallsyms])')).toBe(
      'asm_exc_page_fault [kernel]',
    );
    expect(frameName(`1 ${'x'.repeat(1000)} (/judge/program)`)).toHaveLength(400);
  });
});

describe('symbols perf left unnamed', () => {
  it("names the program's addresses from nm's table (another program shared its path)", () => {
    const table = parseNm(
      [
        '0000000000001000 T _init',
        '0000000000002360 T _start',
        '00000000000024f0 T wordcount(std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >)',
        '0000000000004b20 T main',
        '0000000000004010 B counter',
      ].join('\n'),
    );
    expect(symbolAt(table, 0x4b9d)).toBe('main');
    expect(symbolAt(table, 0x10)).toBeNull();
    expect(frameName('2553 [unknown] (/judge/program)', '/judge/program', table)).toMatch(
      /^wordcount\(/,
    );
    // Another file's unknown frame stays unknown.
    expect(frameName('2553 [unknown] (/usr/lib/libx.so)', '/judge/program', table)).toBe(
      '[unknown in libx.so]',
    );
  });
});

describe('perfRecordArgs', () => {
  it('samples the pinned CPU with DWARF call stacks, events off until enabled', () => {
    const argv = perfRecordArgs('/usr/bin/perf', {
      event: 'cpu-clock',
      cpu: 3,
      output: '/w/perf.data',
      controlFifo: '/w/control',
    });
    expect(argv.join(' ')).toBe(
      '/usr/bin/perf record -e cpu-clock -F 499 --call-graph dwarf --no-buildid --no-buildid-cache -C 3 -D -1 ' +
        '--control fifo:/w/control -o /w/perf.data',
    );
    expect(
      perfRecordArgs('/usr/bin/perf', {
        event: 'cycles',
        cpu: 3,
        output: '/w/perf.data',
        controlFifo: '/w/control',
        hz: 99,
      }).join(' '),
    ).toContain('-e cycles -F 99 ');
  });
});

describe('samplingHz', () => {
  it('samples short runs at 499 Hz and keeps long ones near the target number of samples', () => {
    expect(samplingHz(undefined)).toBe(SAMPLING_HZ);
    expect(samplingHz(1_000)).toBe(SAMPLING_HZ);
    expect((SAMPLING_HZ * 4_000) / 1000).toBeLessThanOrEqual(TARGET_SAMPLES);
    expect(samplingHz(4_000)).toBe(SAMPLING_HZ);
    // 8 s (a 256 MiB baseline on a quiet host): 249 Hz, about 2 000 samples rather than 4 000.
    expect(samplingHz(8_000)).toBe(249);
    for (const ms of [5_000, 9_000, 20_000, 40_000, 120_000]) {
      const hz = samplingHz(ms);
      expect(hz).toBeLessThan(SAMPLING_HZ);
      if (hz > 49) expect((hz * ms) / 1000, `${ms} ms`).toBeLessThanOrEqual(TARGET_SAMPLES);
    }
    // A median that moves a little keeps its rate (the baseline's cached profile is keyed by it).
    expect(samplingHz(6_500)).toBe(samplingHz(6_000));
  });
});

describe('StackFolder with the program file', () => {
  it("keeps only processes that mapped the judged binary (another judging's program is dropped)", () => {
    const program = { path: '/judge/program', device: deviceName(0xfe00), inode: 2146643 };
    expect(program.device).toBe('fe:00');
    const folder = new StackFolder('program', program);
    const mmap = (pid: number, inode: number) =>
      `program ${pid} PERF_RECORD_MMAP2 ${pid}/${pid}: [0x55dd25133000(0x4000) @ 0x2000 fe:00 ${inode} 1161543518]: r-xp /judge/program`;
    const sample = (pid: number, leaf: string) => [
      `program ${pid} `,
      `\t2553 ${leaf} (/judge/program)`,
      '\t4b9d main (/judge/program)',
      '',
    ];
    for (const line of [
      mmap(11296, 2146643),
      mmap(11300, 999),
      ...sample(11296, 'wordcount'),
      ...sample(11300, 'someone-else'),
      ...sample(11296, 'wordcount'),
    ])
      folder.line(line);
    expect(folder.profile('cpu-clock').stacks).toEqual([
      { frames: ['main', 'wordcount'], samples: 2 },
    ]);
  });
});

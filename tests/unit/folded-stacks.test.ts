// The sampled profile's exports (folded text, speedscope's file format), the flame graph's boxes and
// the per-function comparison. The speedscope file is checked against a zod transcription of
// speedscope's schema (tests/helpers/speedscope-schema.ts) and the invariants its importer needs.
import { describe, expect, it } from 'vitest';
import { MAX_FUNCTION_NAME, type Hotspots, type SampledProfile } from '../../contracts';
import {
  compareHotspots,
  instructionShare,
  shortFunctionName,
} from '../../lib/core/profile/compare-hotspots';
import {
  flameBoxes,
  foldedText,
  selfSamples,
  speedscopeFile,
} from '../../lib/core/profile/folded-stacks';
import { speedscopeSchema } from '../helpers/speedscope-schema';

const profile = (stacks: [string, number][]): SampledProfile => ({
  event: 'cpu-clock',
  frequencyHz: 499,
  samples: stacks.reduce((n, [, s]) => n + s, 0),
  stacks: stacks.map(([frames, samples]) => ({ frames: frames.split('|'), samples })),
  otherSamples: 0,
});

const solution = profile([
  ['_start|main|wordcount|std::map<a;b>::find', 6],
  ['_start|main|wordcount', 3],
  ['_start|main|print', 1],
]);
const baseline = profile([['_start|main|wordcount|operator>>', 8]]);

describe('speedscopeFile', () => {
  it('writes a file that parses with speedscope’s schema, both sides over one frame table', () => {
    const file = speedscopeFile('submission x on linux-intel', [
      { name: 'baseline', profile: baseline },
      { name: 'solution', profile: solution },
    ]);
    const parsed = speedscopeSchema.parse(JSON.parse(JSON.stringify(file)));
    expect(parsed.profiles).toHaveLength(2);
    const frames = parsed.shared.frames.map((f) => f.name);
    expect(new Set(frames).size).toBe(frames.length);
    for (const p of parsed.profiles) {
      if (p.type !== 'sampled') throw new Error('expected sampled profiles');
      expect(p.weights).toHaveLength(p.samples.length);
      expect(p.endValue).toBe(p.weights.reduce((a, b) => a + b, 0));
      for (const stack of p.samples) for (const i of stack) expect(i).toBeLessThan(frames.length);
    }
    const second = parsed.profiles[1]!;
    if (second.type !== 'sampled') throw new Error('expected a sampled profile');
    expect(second.samples[0]!.map((i) => frames[i])).toEqual([
      '_start',
      'main',
      'wordcount',
      'std::map<a;b>::find',
    ]);
    expect(second.weights).toEqual([6, 3, 1]);
  });

  it('the schema refuses what speedscope could not open: a frame past the table, a missing weight', () => {
    const file = JSON.parse(
      JSON.stringify(speedscopeFile('x', [{ name: 'solution', profile: solution }])),
    ) as { shared: { frames: unknown[] }; profiles: { samples: number[][]; weights: number[] }[] };
    expect(speedscopeSchema.safeParse(file).success).toBe(true);
    const past = structuredClone(file);
    past.profiles[0]!.samples[0]!.push(file.shared.frames.length);
    expect(speedscopeSchema.safeParse(past).error?.message).toMatch(/past the frame table/);
    const unweighted = structuredClone(file);
    unweighted.profiles[0]!.weights.pop();
    expect(speedscopeSchema.safeParse(unweighted).error?.message).toMatch(/one weight per sample/);
  });
});

describe('foldedText', () => {
  it('writes one line per stack, a semicolon inside a name replaced', () => {
    expect(foldedText(solution)).toBe(
      '_start;main;wordcount;std::map<a:b>::find 6\n_start;main;wordcount 3\n_start;main;print 1\n',
    );
  });
});

describe('flameBoxes', () => {
  it('merges stacks along their paths, each box as wide as its share', () => {
    const boxes = flameBoxes(solution, 0);
    const at = (name: string) => boxes.find((b) => b.name === name)!;
    expect(at('_start')).toMatchObject({ depth: 0, start: 0, width: 1, samples: 10 });
    expect(at('wordcount')).toMatchObject({ depth: 2, samples: 9 });
    expect(at('print')).toMatchObject({ depth: 2, start: 0, width: 0.1 });
    // Siblings sorted by name: print before wordcount.
    expect(at('wordcount').start).toBeCloseTo(0.1, 12);
    expect(at('std::map<a;b>::find')).toMatchObject({ depth: 3, width: 0.6 });
  });

  it('leaves out boxes too narrow to read', () => {
    expect(flameBoxes(solution, 0.2).map((b) => b.name)).not.toContain('print');
  });

  it('counts self samples by innermost frame', () => {
    expect(selfSamples(solution)).toEqual([
      { name: 'std::map<a;b>::find', samples: 6 },
      { name: 'wordcount', samples: 3 },
      { name: 'print', samples: 1 },
    ]);
  });
});

const cost = (name: string, instructions: number) => ({
  name,
  file: '???',
  instructions,
  l1DataMisses: 1,
  llDataMisses: 0,
  branchMispredictions: 2,
});

describe('compareHotspots', () => {
  const base: Hotspots = {
    functions: [cost('operator>>', 600), cost('std::hash', 300), cost('main', 100)],
    totalInstructions: 1000,
    functionCount: 3,
  };
  const sol: Hotspots = {
    functions: [cost('parse', 150), cost('main', 50)],
    totalInstructions: 200,
    functionCount: 2,
  };

  it('lines up functions of the same name, the larger side first, ratio where both ran it', () => {
    const rows = compareHotspots(base, sol);
    expect(rows.map((r) => r.name)).toEqual(['operator>>', 'std::hash', 'parse', 'main']);
    expect(rows.find((r) => r.name === 'main')!.ratio).toBe(0.5);
    expect(rows.find((r) => r.name === 'parse')).toMatchObject({ baseline: null, ratio: null });
    expect(instructionShare(base.functions[0]!, base)).toBe(0.6);
  });
});

describe('shortFunctionName', () => {
  it('folds template arguments of a long name, and keeps operators and short names', () => {
    const long =
      'std::_Hashtable<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >, int>::_M_rehash_aux';
    expect(shortFunctionName(long)).toBe('std::_Hashtable<…>::_M_rehash_aux');
    expect(shortFunctionName('std::map<int, int>::find')).toBe('std::map<int, int>::find');
    const op = `bool operator<(${'x'.repeat(60)} const&, int)`;
    expect(shortFunctionName(op)).toBe(op);
  });

  it('folds the parameters of a name still long without its template arguments', () => {
    const dyncast =
      '__cxxabiv1::__vmi_class_type_info::__do_dyncast(long, __cxxabiv1::__class_type_info::__sub_kind, __cxxabiv1::__class_type_info const*, void const*) const';
    expect(shortFunctionName(dyncast)).toBe(
      '__cxxabiv1::__vmi_class_type_info::__do_dyncast(…) const',
    );
    const call = `Parser<${'int, '.repeat(20)}char>::operator()(std::basic_string_view<char> const&, ${'x'.repeat(60)})`;
    expect(shortFunctionName(call)).toBe('Parser<…>::operator()(…)');
  });

  it('folds a name the judge cut at MAX_FUNCTION_NAME, and says it goes on', () => {
    const args =
      'std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >, ';
    // Cut inside the template's arguments (a real one from std::unordered_map's operator[]).
    const insideTemplate = `std::__detail::_Map_base<${args.repeat(20)}`.slice(
      0,
      MAX_FUNCTION_NAME,
    );
    expect(shortFunctionName(insideTemplate)).toBe('std::__detail::_Map_base<…>…');
    // Cut in a parameter list, outside any template.
    const inParameters = `f(${'std::vector<int>, '.repeat(40)}`.slice(0, MAX_FUNCTION_NAME);
    expect(shortFunctionName(inParameters)).toBe('f(…)…');
  });
});

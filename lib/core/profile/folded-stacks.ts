// Sampled profiles in the forms people open them with: Brendan Gregg's folded-stack text (the
// flamegraph.pl and inferno input), speedscope's JSON file format, and the tree a flame graph draws.
import type { FoldedStack, SampledProfile } from '../../../contracts';

/** One line per stack, `outer;inner;leaf <samples>` (a `;` inside a name becomes `:`). */
export function foldedText(profile: SampledProfile): string {
  return profile.stacks
    .map((s) => `${s.frames.map((f) => f.replaceAll(';', ':')).join(';')} ${s.samples}\n`)
    .join('');
}

/** speedscope's file format (https://www.speedscope.app/file-format-schema.json), version 0.7. */
export interface SpeedscopeFile {
  $schema: 'https://www.speedscope.app/file-format-schema.json';
  version: string;
  name: string;
  exporter: string;
  activeProfileIndex: number;
  shared: { frames: { name: string }[] };
  profiles: {
    type: 'sampled';
    name: string;
    unit: 'none';
    startValue: number;
    endValue: number;
    samples: number[][];
    weights: number[];
  }[];
}

/**
 * Both sides as two sampled profiles sharing one frame table; each distinct stack is one sample
 * weighted by how often perf saw it (unit "none": sample counts), so the file stays as small as
 * the result.
 */
export function speedscopeFile(
  name: string,
  sides: { name: string; profile: SampledProfile }[],
): SpeedscopeFile {
  const frames: { name: string }[] = [];
  const index = new Map<string, number>();
  const frameIndex = (frame: string) => {
    let i = index.get(frame);
    if (i === undefined) {
      i = frames.length;
      frames.push({ name: frame });
      index.set(frame, i);
    }
    return i;
  };
  const profiles = sides.map((side) => {
    const samples = side.profile.stacks.map((s: FoldedStack) => s.frames.map(frameIndex));
    const weights = side.profile.stacks.map((s) => s.samples);
    return {
      type: 'sampled' as const,
      name: `${side.name} (${side.profile.event}, ${side.profile.frequencyHz} Hz)`,
      unit: 'none' as const,
      startValue: 0,
      endValue: weights.reduce((a, b) => a + b, 0),
      samples,
      weights,
    };
  });
  return {
    $schema: 'https://www.speedscope.app/file-format-schema.json',
    version: '0.7.0',
    name,
    exporter: 'perfjudge',
    activeProfileIndex: 0,
    shared: { frames },
    profiles,
  };
}

/** One box of a flame graph: a frame on one path, its share of the samples and where it sits. */
export interface FlameBox {
  name: string;
  depth: number;
  /** Share of all samples before it on its row, and its own share (0…1). */
  start: number;
  width: number;
  samples: number;
}

/**
 * The boxes of an icicle-style flame graph (callers above callees, the whole run on top): stacks
 * merged by frame name along their paths, siblings ordered by name as flamegraph.pl does, boxes
 * narrower than `minWidth` left out (they could not be read; their time stays in their parent).
 */
export function flameBoxes(profile: SampledProfile, minWidth = 0.002): FlameBox[] {
  interface Node {
    samples: number;
    children: Map<string, Node>;
  }
  const root: Node = { samples: 0, children: new Map() };
  for (const stack of profile.stacks) {
    root.samples += stack.samples;
    let node = root;
    for (const frame of stack.frames) {
      let child = node.children.get(frame);
      if (!child) {
        child = { samples: 0, children: new Map() };
        node.children.set(frame, child);
      }
      child.samples += stack.samples;
      node = child;
    }
  }
  const total = root.samples;
  const boxes: FlameBox[] = [];
  if (total === 0) return boxes;
  const walk = (node: Node, depth: number, start: number) => {
    let at = start;
    const names = [...node.children.keys()].sort();
    for (const name of names) {
      const child = node.children.get(name)!;
      const width = child.samples / total;
      if (width >= minWidth) {
        boxes.push({ name, depth, start: at, width, samples: child.samples });
        walk(child, depth + 1, at);
      }
      at += width;
    }
  };
  walk(root, 0, 0);
  return boxes;
}

/** Samples whose innermost frame is `name`'s, per frame: the "self" time, most first. */
export function selfSamples(
  profile: SampledProfile,
  top = 10,
): { name: string; samples: number }[] {
  const self = new Map<string, number>();
  for (const stack of profile.stacks) {
    const leaf = stack.frames[stack.frames.length - 1]!;
    self.set(leaf, (self.get(leaf) ?? 0) + stack.samples);
  }
  return [...self]
    .map(([name, samples]) => ({ name, samples }))
    .sort((a, b) => b.samples - a.samples || (a.name < b.name ? -1 : 1))
    .slice(0, top);
}

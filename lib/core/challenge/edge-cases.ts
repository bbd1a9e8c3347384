// Loads a challenge's hand-written edge-case suite (tests/<group>/<case>.yaml) into exact input and output bytes.
import type { Dirent } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { describeIssues, KEBAB_CASE_PATTERN, InvalidChallengeError } from '../../../contracts';
import type { Challenge } from './load-manifest';

/** A case expands to at most this many bytes, so a typo in `times` cannot exhaust memory. */
const MAX_CASE_BYTES = 64 * 1024 * 1024;

/** The separators of the wordcount contract; an `expected` word must not contain them. */
const SEPARATORS = new Set([0x20, 0x09, 0x0a, 0x0b, 0x0c, 0x0d]);

/**
 * Bytes written readably: `{text}` is a YAML string encoded as UTF-8 (YAML's "\xNN" is a code
 * point, not a byte), `{hex}` raw bytes, `{repeat, times}` a segment or list of them repeated.
 */
export type Segment =
  { text: string } | { hex: string } | { repeat: Segment | Segment[]; times: number };

const hexSchema = z
  .string()
  .regex(/^\s*(?:[0-9a-fA-F]{2}\s*)*$/, 'must be pairs of hex digits, e.g. "ff fe 00"');

const segmentSchema: z.ZodType<Segment> = z
  .strictObject({
    text: z.string().optional(),
    hex: hexSchema.optional(),
    get repeat() {
      return z.union([segmentSchema, z.array(segmentSchema).min(1)]).optional();
    },
    times: z.number().int().nonnegative().optional(),
  })
  .superRefine((segment, ctx) => {
    const kinds = (['text', 'hex', 'repeat'] as const).filter((k) => segment[k] !== undefined);
    if (kinds.length !== 1)
      ctx.addIssue({
        code: 'custom',
        message: `a segment has exactly one of text, hex or repeat (found ${kinds.join(', ') || 'none'})`,
      });
    if (segment.repeat !== undefined && segment.times === undefined)
      ctx.addIssue({ code: 'custom', message: 'required with `repeat`', path: ['times'] });
    if (segment.repeat === undefined && segment.times !== undefined)
      ctx.addIssue({ code: 'custom', message: 'only goes with `repeat`', path: ['times'] });
  }) as z.ZodType<Segment>;

/** A word: a plain string (UTF-8), one segment, or a list of segments concatenated. */
const wordSchema = z.unknown().transform((value, ctx): Segment[] => {
  if (typeof value === 'string') return [{ text: value }];
  if (typeof value !== 'object' || value === null) {
    ctx.addIssue({
      code: 'custom',
      message: `a word must be a string, a segment or a list of segments; got ${JSON.stringify(value)} (quote words YAML reads as numbers, booleans or null: "1", "true", "~")`,
    });
    return z.NEVER;
  }
  const parsed = Array.isArray(value)
    ? z.array(segmentSchema).min(1).safeParse(value)
    : segmentSchema.transform((segment) => [segment]).safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues)
    ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  return z.NEVER;
});

export const edgeCaseFileSchema = z
  .strictObject({
    description: z.string().min(1),
    /** Segments concatenated into the input file's bytes; `[]` is the empty file. */
    input: z.array(segmentSchema),
    /**
     * A word-count driver's output lines in order, each `[word, count]` (wordcount's shape, checked
     * against its contract: no separator inside a word, count descending then byte-wise order).
     */
    expected: z.array(z.tuple([wordSchema, z.number().int().positive()])).optional(),
    /** Any other challenge: the driver's exact output, as segments. */
    output: z.array(segmentSchema).optional(),
  })
  .refine((file) => (file.expected === undefined) !== (file.output === undefined), {
    message: 'a case has exactly one of `expected` (word-count rows) or `output` (exact bytes)',
  });
export type EdgeCaseFile = z.infer<typeof edgeCaseFileSchema>;

export interface EdgeCase {
  group: string;
  /** The file name without `.yaml`. */
  name: string;
  description: string;
  /** From the manifest's group: a failure is the verdict (true) or a warning (false). */
  required: boolean;
  input: Buffer;
  /** The driver's exact output bytes: `word\tcount\n` per line. */
  expected: Buffer;
}

function segmentsSize(segments: Segment[]): number {
  let size = 0;
  for (const segment of segments) {
    if ('text' in segment) size += Buffer.byteLength(segment.text, 'utf8');
    else if ('hex' in segment) size += segment.hex.replace(/\s/g, '').length / 2;
    else
      size +=
        segment.times *
        segmentsSize(Array.isArray(segment.repeat) ? segment.repeat : [segment.repeat]);
  }
  return size;
}

/** Expands segments into bytes (call `segmentsSize` first: `times` can be large). */
function segmentsToBytes(segments: Segment[]): Buffer {
  const parts: Buffer[] = [];
  for (const segment of segments) {
    if ('text' in segment) parts.push(Buffer.from(segment.text, 'utf8'));
    else if ('hex' in segment) parts.push(Buffer.from(segment.hex.replace(/\s/g, ''), 'hex'));
    else {
      const unit = segmentsToBytes(
        Array.isArray(segment.repeat) ? segment.repeat : [segment.repeat],
      );
      // fill() repeats the unit natively: a copy per repetition took about a second of CPU per
      // judging for the inputs of MiB-long words (every judging loads the edge cases).
      const repeated = Buffer.allocUnsafe(unit.length * segment.times);
      if (repeated.length > 0) repeated.fill(unit);
      parts.push(repeated);
    }
  }
  return Buffer.concat(parts);
}

/** The offset of the first separator byte in `word`, or -1 (one native search per separator). */
function firstSeparator(word: Buffer): number {
  let first = -1;
  for (const separator of SEPARATORS) {
    const at = word.indexOf(separator);
    if (at >= 0 && (first < 0 || at < first)) first = at;
  }
  return first;
}

function hexOf(bytes: Buffer, limit = 16): string {
  const shown = [...bytes.subarray(0, limit)].map((b) => b.toString(16).padStart(2, '0')).join(' ');
  return bytes.length > limit ? `${shown} … (${bytes.length} bytes)` : shown;
}

/** Turns a validated case file into bytes, checking what zod cannot (sizes, words, order). */
function buildCase(file: string, parsed: EdgeCaseFile): { input: Buffer; expected: Buffer } {
  const fail = (field: string, message: string): never => {
    throw new InvalidChallengeError(`Invalid edge case ${file}:\n  - ${field}: ${message}`);
  };
  const inputSize = segmentsSize(parsed.input);
  if (inputSize > MAX_CASE_BYTES)
    fail('input', `expands to ${inputSize} bytes, more than the ${MAX_CASE_BYTES} allowed`);
  const input = segmentsToBytes(parsed.input);
  if (parsed.output !== undefined) {
    const outputSize = segmentsSize(parsed.output);
    if (outputSize > MAX_CASE_BYTES)
      fail('output', `expands to ${outputSize} bytes, more than the ${MAX_CASE_BYTES} allowed`);
    return { input, expected: segmentsToBytes(parsed.output) };
  }

  const lines: Buffer[] = [];
  let previous: Buffer | undefined;
  let previousCount = 0;
  const seen = new Set<string>();
  (parsed.expected ?? []).forEach(([segments, count], row) => {
    const size = segmentsSize(segments);
    if (size > MAX_CASE_BYTES)
      fail(`expected.${row}.0`, `expands to ${size} bytes, more than ${MAX_CASE_BYTES}`);
    const word = segmentsToBytes(segments);
    if (word.length === 0) fail(`expected.${row}.0`, 'a word is never empty');
    const separatorAt = firstSeparator(word);
    if (separatorAt >= 0)
      fail(
        `expected.${row}.0`,
        `word contains separator byte 0x${word[separatorAt]!.toString(16).padStart(2, '0')} at offset ${separatorAt}`,
      );
    const key = word.toString('latin1');
    if (seen.has(key)) fail(`expected.${row}.0`, `word ${hexOf(word)} is listed twice`);
    seen.add(key);
    if (previous !== undefined) {
      const inOrder =
        count < previousCount || (count === previousCount && Buffer.compare(previous, word) < 0);
      if (!inOrder)
        fail(
          `expected.${row}`,
          `out of order: rows go by count descending, then word ascending byte-wise (this row: ${count} × ${hexOf(word)}; previous: ${previousCount} × ${hexOf(previous)})`,
        );
    }
    previous = word;
    previousCount = count;
    lines.push(word, Buffer.from(`\t${count}\n`, 'latin1'));
  });
  return { input, expected: Buffer.concat(lines) };
}

/** Parses and expands one case file's text; `file` names it in errors. */
export function parseEdgeCase(
  text: string,
  file: string,
): { description: string; input: Buffer; expected: Buffer } {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new InvalidChallengeError(
      `Edge case ${file} is not valid YAML: ${(error as Error).message}`,
    );
  }
  const parsed = edgeCaseFileSchema.safeParse(raw);
  if (!parsed.success)
    throw new InvalidChallengeError(`Invalid edge case ${file}:\n${describeIssues(parsed.error)}`);
  return { description: parsed.data.description, ...buildCase(file, parsed.data) };
}

async function listDir(dir: string): Promise<{ dirs: string[]; files: string[] }> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    throw new InvalidChallengeError(`Cannot read tests folder ${dir}: ${(error as Error).message}`);
  }
  const names = (pred: (e: Dirent) => boolean): string[] =>
    entries
      .filter(pred)
      .map((e) => e.name)
      .sort();
  return { dirs: names((e) => e.isDirectory()), files: names((e) => !e.isDirectory()) };
}

/**
 * Every case of the challenge, in manifest group order then by name. The tests folder and the
 * manifest's groups must match one to one, so a case can neither be skipped nor lost.
 */
export async function loadEdgeCases(challenge: Challenge): Promise<EdgeCase[]> {
  const { testsDir } = challenge;
  const groups = challenge.manifest.tests.groups;
  const { dirs } = await listDir(testsDir);
  const groupIds = new Set(groups.map((g) => g.id));
  const strays = dirs.filter((d) => !groupIds.has(d));
  const missing = groups.filter((g) => !dirs.includes(g.id)).map((g) => g.id);
  if (strays.length > 0 || missing.length > 0)
    throw new InvalidChallengeError(
      [
        `Edge-case folders in ${testsDir} do not match the manifest's tests.groups:`,
        ...strays.map((d) => `  - folder "${d}" has no group in the manifest`),
        ...missing.map((g) => `  - group "${g}" has no folder`),
      ].join('\n'),
    );

  const cases: EdgeCase[] = [];
  for (const group of groups) {
    const groupDir = path.join(testsDir, group.id);
    const { dirs: subdirs, files } = await listDir(groupDir);
    const problems = [
      ...subdirs.map((d) => `folder "${d}" (cases are files directly in the group folder)`),
      ...files
        .filter(
          (f) => !(f.endsWith('.yaml') && KEBAB_CASE_PATTERN.test(f.slice(0, -'.yaml'.length))),
        )
        .map((f) => `file "${f}" (cases are named <kebab-case>.yaml)`),
    ];
    if (problems.length > 0)
      throw new InvalidChallengeError(
        `Unexpected entries in ${groupDir}:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
      );
    if (files.length === 0)
      throw new InvalidChallengeError(`Group folder ${groupDir} holds no cases`);
    for (const fileName of files) {
      const file = path.join(groupDir, fileName);
      const parsed = parseEdgeCase(await readFile(file, 'utf8'), file);
      cases.push({
        group: group.id,
        name: fileName.slice(0, -'.yaml'.length),
        required: group.required,
        ...parsed,
      });
    }
  }
  return cases;
}

export interface MaterializedEdgeCase extends EdgeCase {
  inputPath: string;
  expectedPath: string;
}

/** Writes `<dir>/<group>/<name>.in` and `.expected` for programs that read files. */
export async function materializeEdgeCases(
  cases: EdgeCase[],
  dir: string,
): Promise<MaterializedEdgeCase[]> {
  const written: MaterializedEdgeCase[] = [];
  for (const edgeCase of cases) {
    const groupDir = path.join(dir, edgeCase.group);
    await mkdir(groupDir, { recursive: true });
    const inputPath = path.join(groupDir, `${edgeCase.name}.in`);
    const expectedPath = path.join(groupDir, `${edgeCase.name}.expected`);
    await writeFile(inputPath, edgeCase.input);
    await writeFile(expectedPath, edgeCase.expected);
    written.push({ ...edgeCase, inputPath, expectedPath });
  }
  return written;
}

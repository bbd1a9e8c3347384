// The word model: Zipf-distributed ranks over an effectively unbounded vocabulary. The head is
// precomputed as bytes; the long tail is composed from the rank (a stem plus suffixes), so rare
// words repeat consistently and the distinct count grows with the input size at fixed memory.
import {
  CJK,
  CODAS,
  CYRILLIC,
  FREQUENT_WORDS,
  GREEK,
  LATIN_FOREIGN,
  ONSETS,
  SUFFIXES,
  VOWELS,
} from './lexicon';
import { mix32, TWO_POW_MINUS_32, type Xoshiro128 } from './prng';

/** Strings encoded once as UTF-8 into one byte array, addressed by id. */
export class PiecePool {
  private readonly chunks: Uint8Array[] = [];
  private readonly starts: number[] = [];
  private size = 0;
  private readonly encoder = new TextEncoder();
  bytes = new Uint8Array(0);
  view = new DataView(this.bytes.buffer);
  start = new Int32Array(0);
  end = new Int32Array(0);

  add(text: string): number {
    const encoded = this.encoder.encode(text);
    this.chunks.push(encoded);
    this.starts.push(this.size);
    this.size += encoded.length;
    return this.chunks.length - 1;
  }

  addAll(texts: readonly string[]): Int32Array {
    return Int32Array.from(texts.map((text) => this.add(text)));
  }

  /** Packs everything added so far (plus slack for copyBytes); call once. */
  freeze(): this {
    this.bytes = new Uint8Array(this.size + COPY_SLACK);
    this.view = new DataView(this.bytes.buffer);
    this.start = Int32Array.from(this.starts);
    this.end = new Int32Array(this.chunks.length);
    this.chunks.forEach((chunk, i) => {
      this.bytes.set(chunk, this.starts[i]);
      this.end[i] = this.starts[i]! + chunk.length;
    });
    return this;
  }
}

/** Number of precomputed head ranks: small enough that the hot tables stay in the CPU cache. */
const HEAD_SIZE = 1 << 15;
/** Number of stems the composed words are built on. */
const STEM_COUNT = 1 << 14;
/** Tail levels: level k holds ranks [HEAD_SIZE << k, HEAD_SIZE << (k + 1)). */
const TAIL_LEVELS = 13;
/**
 * Relative weights of the tail levels. Plain Zipf (exponent 1) would weight them equally; real
 * corpora fall off faster past the core vocabulary, so the weights decline.
 */
const TAIL_LEVEL_WEIGHTS = [120, 112, 105, 100, 95, 90, 85, 80, 76, 72, 68, 64, 60];
/** Offset q in the head weights 1/(rank + 1 + q): keeps the top word near 3% of all words, as "a" is. */
const ZIPF_OFFSET = 2;
/** Ranks below this each form their own sampling segment; above it segments grow by a quarter. */
const EXACT_RANKS = 64;
/** Segments in the alias table (a power of two: the bucket is the low bits of one draw). */
const SEGMENT_SLOTS = 128;
/** An upper bound on a word's length in bytes (the longest are about 40: WordTable checks). */
const MAX_WORD_BYTES = 96;

/**
 * Bytes that copyBytes and WordTable.write may write past the end of a word (and read past the
 * end of a source).
 */
export const COPY_SLACK = 16;

/**
 * Copies `length` bytes through DataViews, 4 at a time, always at least 8 (one fixed-length copy
 * covers most words without a data-dependent branch). Little-endian on both sides, so the bytes
 * are copied exactly on any platform. It may write up to COPY_SLACK bytes past the end: callers
 * keep that much slack after their buffers and only ever append, so those bytes are overwritten
 * or never used.
 */
export function copyBytes(
  to: DataView,
  pos: number,
  from: DataView,
  start: number,
  length: number,
): void {
  to.setUint32(pos, from.getUint32(start, true), true);
  to.setUint32(pos + 4, from.getUint32(start + 4, true), true);
  for (let k = 8; k < length; k += 4) to.setUint32(pos + k, from.getUint32(start + k, true), true);
}

// Pieces of procedural words, one pool for all of them.
const pieces = new PiecePool();
const onsetIds = pieces.addAll(ONSETS);
const vowelIds = VOWELS.map((list) => pieces.addAll(list));
const codaIds = pieces.addAll(CODAS.map((s) => (s === '_' ? '' : s)));
const cyrillicIds = pieces.addAll([...CYRILLIC]);
const greekIds = pieces.addAll([...GREEK]);
const cjkIds = pieces.addAll([...CJK]);
const foreignIds = pieces.addAll(LATIN_FOREIGN);
const ideographicSpaceId = pieces.add('\u3000');
const latinVowelIds = pieces.addAll(['a', 'e', 'i', 'o', 'u', 'y', 'ei', 'au']);
pieces.freeze();
const pieceView = pieces.view;
const pieceStart = pieces.start;
const pieceEnd = pieces.end;

function putPiece(out: DataView, pos: number, id: number): number {
  const start = pieceStart[id]!;
  const length = pieceEnd[id]! - start;
  copyBytes(out, pos, pieceView, start, length);
  return pos + length;
}

/** One of `ids` chosen by the low 10 bits of `bits` (multiply-shift: integer-only, no modulo). */
function pick(ids: Int32Array, bits: number): number {
  return ids[((bits & 1023) * ids.length) >>> 10]!;
}

/**
 * Uppercases the letter starting at `pos` in place, for the letters this generator produces:
 * ASCII, Latin-1 accented (á → Á is 0xC3 0xA1 → 0xC3 0x81) and ő/ű (0xC5 0x91/0xB1 → 0x90/0xB0).
 */
export function capitalizeAt(out: DataView, pos: number): void {
  const b = out.getUint8(pos);
  if (b >= 0x61 && b <= 0x7a) out.setUint8(pos, b - 32);
  else if (b === 0xc3) {
    const c = out.getUint8(pos + 1);
    if (c >= 0xa0 && c <= 0xbe && c !== 0xb7) out.setUint8(pos + 1, c - 0x20);
  } else if (b === 0xc5) {
    const c = out.getUint8(pos + 1);
    if (c === 0x91 || c === 0xb1) out.setUint8(pos + 1, c - 1);
  }
}

/** Vowel-harmony class of the stem with hash `h`: 0 back, 1 front unrounded, 2 front rounded. */
function stemClass(h: number): number {
  const roll = h & 1023;
  return roll < 520 ? 0 : roll < 880 ? 1 : 2;
}

/** A Hungarian-looking stem of 1-4 syllables, all vowels of one harmony class. */
function writeStem(out: DataView, pos: number, hash: number): number {
  let h = hash;
  const vowels = vowelIds[stemClass(h)]!;
  const syllableRoll = (h >>> 10) & 63;
  const syllables = syllableRoll < 14 ? 1 : syllableRoll < 44 ? 2 : syllableRoll < 59 ? 3 : 4;
  const bareStart = ((h >>> 16) & 7) === 0;
  for (let i = 0; i < syllables; i++) {
    h = mix32(h + 0x3c6ef372 + i);
    if (i > 0 || !bareStart) pos = putPiece(out, pos, pick(onsetIds, h));
    pos = putPiece(out, pos, pick(vowels, h >>> 10));
    pos = putPiece(out, pos, pick(codaIds, h >>> 20));
  }
  return pos;
}

/** The rare non-Hungarian words: Cyrillic, Greek, CJK (with U+3000 inside) and Latin-script names. */
function writeForeignWord(out: DataView, pos: number, hash: number): number {
  let h = mix32(hash + 0x6a09e667);
  const kind = hash & 15;
  if (kind < 4) {
    const letters = kind < 3 ? cyrillicIds : greekIds;
    const n = 4 + (h & 3) + ((h >>> 2) & 3);
    for (let i = 0; i < n; i++) {
      h = mix32(h + i);
      pos = putPiece(out, pos, pick(letters, h));
    }
    return pos;
  }
  if (kind < 7) {
    // An ideographic space inside a CJK name is part of the word, not a separator.
    const n = 2 + (h & 3);
    const gap = (h >>> 2) & 7;
    for (let i = 0; i < n; i++) {
      if (i === gap && i > 0) pos = putPiece(out, pos, ideographicSpaceId);
      h = mix32(h + i);
      pos = putPiece(out, pos, pick(cjkIds, h));
    }
    return pos;
  }
  const start = pos;
  const n = 1 + (h & 3);
  for (let i = 0; i < n; i++) {
    h = mix32(h + i);
    pos = putPiece(out, pos, pick(h & 0x40000000 ? foreignIds : onsetIds, h));
    pos = putPiece(out, pos, pick(latinVowelIds, h >>> 10));
    if (h & 0x80000000) pos = putPiece(out, pos, pick(codaIds, h >>> 20));
  }
  if (kind < 12) capitalizeAt(out, start);
  return pos;
}

/**
 * Words packed for fast copying: a 16-byte record per word (length, then its first 12 bytes), so
 * most words are copied with one cache-line access and three fixed stores; longer words continue
 * from the packed bytes.
 */
class WordTable {
  /** Four int32 per word: [start << 7 | length, bytes 0-3, bytes 4-7, bytes 8-11]. */
  readonly records: Int32Array;
  readonly bytes: Uint8Array;
  readonly view: DataView;
  readonly count: number;

  constructor(count: number, write: (out: DataView, pos: number, index: number) => number) {
    const scratch = new Uint8Array(count * MAX_WORD_BYTES);
    const scratchView = new DataView(scratch.buffer);
    this.count = count;
    this.records = new Int32Array(count * 4);
    const starts = new Int32Array(count + 1);
    let pos = 0;
    for (let i = 0; i < count; i++) {
      starts[i] = pos;
      pos = write(scratchView, pos, i);
    }
    starts[count] = pos;
    for (let i = 0; i < count; i++) {
      // The record keeps the length in 7 bits.
      if (starts[i + 1]! - starts[i]! > 127) throw new Error(`word ${i} is too long for a record`);
    }
    this.bytes = scratch.slice(0, pos + COPY_SLACK);
    this.view = new DataView(this.bytes.buffer);
    for (let i = 0; i < count; i++) {
      const start = starts[i]!;
      this.records[i * 4] = (start << 7) | (starts[i + 1]! - start);
      for (let k = 1; k < 4; k++)
        this.records[i * 4 + k] = this.view.getInt32(start + (k - 1) * 4, true);
    }
  }

  /** Writes word `index` at `pos` and returns its length (writes up to COPY_SLACK bytes past it). */
  write(out: DataView, pos: number, index: number): number {
    const records = this.records;
    const at = index << 2;
    const info = records[at]!;
    out.setInt32(pos, records[at + 1]!, true);
    out.setInt32(pos + 4, records[at + 2]!, true);
    out.setInt32(pos + 8, records[at + 3]!, true);
    const length = info & 127;
    if (length > 12) {
      const from = this.view;
      const start = info >>> 7;
      for (let k = 12; k < length; k += 4)
        out.setInt32(pos + k, from.getInt32(start + k, true), true);
    }
    return length;
  }
}

/** Suffix pieces in the same packed form, per harmony class. */
const suffixTables = SUFFIXES.map(
  (list) =>
    new WordTable(list.length, (out, pos, i) => {
      const bytes = new TextEncoder().encode(list[i]!);
      bytes.forEach((byte, k) => out.setUint8(pos + k, byte));
      return pos + bytes.length;
    }),
);

/**
 * The vocabulary of one seed: stems and head words as bytes, and a sampler of Zipf ranks.
 *
 * Every rank past the frequent real words spells stem + 0-2 suffixes (+ capital), all chosen by
 * a hash of the rank, so one rank is always the same word and distinct ranks are almost always
 * distinct words. Ranks are sampled in segments (single ranks at the top, then ranges growing by
 * a quarter, then the tail levels): a segment is drawn through a 128-entry alias table and the
 * rank uniformly inside it. Within a segment the true 1/rank density varies by at most 25%, and
 * the sampler touches no large table, which keeps it fast.
 */
export class Vocabulary {
  private readonly stems: WordTable;
  private readonly stemClass: Uint8Array;
  private readonly head: WordTable;
  private readonly segmentBase = new Int32Array(SEGMENT_SLOTS);
  private readonly segmentLength = new Int32Array(SEGMENT_SLOTS);
  /** Alias-method acceptance thresholds on a 16-bit scale, and the aliases. */
  private readonly threshold = new Int32Array(SEGMENT_SLOTS);
  private readonly alias = new Int32Array(SEGMENT_SLOTS);
  /** Segments from this index on are tail levels, too long for a 16-bit offset. */
  private readonly firstTailSegment: number;

  constructor(
    private readonly key: number,
    tailPerMille: number,
  ) {
    this.stemClass = new Uint8Array(STEM_COUNT);
    this.stems = new WordTable(STEM_COUNT, (out, pos, stem) => {
      const h = mix32(Math.imul(stem, 0x85ebca6b) ^ key);
      this.stemClass[stem] = stemClass(h);
      return writeStem(out, pos, h);
    });
    // Head: the frequent real words first, then composed words for the remaining ranks.
    const fixed = [...new Set(FREQUENT_WORDS)].map((word) => new TextEncoder().encode(word));
    this.head = new WordTable(HEAD_SIZE, (out, pos, rank) => {
      const word = fixed[rank];
      if (!word) return pos + this.composeWord(out, pos, rank);
      word.forEach((byte, k) => out.setUint8(pos + k, byte));
      return pos + word.length;
    });

    // Segment weights from integer Zipf weights floor(2^30 / (rank + 1 + q)). Every sum and
    // product below stays under 2^53 or is a power-of-two scaling, and divisions are correctly
    // rounded, so the double arithmetic is exact or identical on every platform.
    const weights: number[] = [];
    let base = 0;
    let headTotal = 0;
    while (base < HEAD_SIZE) {
      const length = base < EXACT_RANKS ? 1 : Math.min(base >> 2, HEAD_SIZE - base);
      let weight = 0;
      for (let rank = base; rank < base + length; rank++) {
        weight += Math.floor(1073741824 / (rank + 1 + ZIPF_OFFSET));
      }
      this.segmentBase[weights.length] = base;
      this.segmentLength[weights.length] = length;
      weights.push(weight);
      headTotal += weight;
      base += length;
    }
    this.firstTailSegment = weights.length;
    // The tail gets tailPerMille of all words, split between its levels.
    const tailTotal = Math.floor((headTotal * tailPerMille) / (1000 - tailPerMille));
    const levelSum = TAIL_LEVEL_WEIGHTS.reduce((a, b) => a + b, 0);
    for (let level = 0; level < TAIL_LEVELS; level++) {
      this.segmentBase[weights.length] = HEAD_SIZE << level;
      this.segmentLength[weights.length] = HEAD_SIZE << level;
      weights.push(Math.floor((tailTotal * TAIL_LEVEL_WEIGHTS[level]!) / levelSum));
    }
    if (weights.length > SEGMENT_SLOTS) throw new Error('too many vocabulary segments');
    while (weights.length < SEGMENT_SLOTS) weights.push(0);

    // Vose's alias method: every bucket holds `total` units, split between itself and one alias.
    const total = weights.reduce((a, b) => a + b, 0);
    const scaled = weights.map((w) => w * SEGMENT_SLOTS);
    const small: number[] = [];
    const large: number[] = [];
    for (let i = SEGMENT_SLOTS - 1; i >= 0; i--) (scaled[i]! < total ? small : large).push(i);
    while (small.length > 0 && large.length > 0) {
      const s = small.pop()!;
      const l = large[large.length - 1]!;
      this.threshold[s] = Math.floor((scaled[s]! * 65536) / total);
      this.alias[s] = l;
      scaled[l] = scaled[l]! - (total - scaled[s]!);
      if (scaled[l]! < total) small.push(large.pop()!);
    }
    for (const i of [...small, ...large]) {
      this.threshold[i] = 65536;
      this.alias[i] = i;
    }
  }

  /** A Zipf-distributed rank over head and tail. */
  sampleRank(rng: Xoshiro128): number {
    return this.sampleRankWith(rng.next() & (SEGMENT_SLOTS - 1), rng);
  }

  /**
   * A Zipf-distributed rank, given 7 random bits for the alias slot (callers that already have a
   * draw save one). A second draw decides slot or alias (16 bits) and, in the head, the offset
   * (16 bits); only tail ranks need a third draw.
   */
  sampleRankWith(slot: number, rng: Xoshiro128): number {
    const r = rng.next();
    // Branch-free alias step (the branch would be mispredicted often): mask is -1 when the draw
    // is below the slot's threshold, so the slot is kept, and 0 when its alias is taken.
    const alias = this.alias[slot]!;
    const mask = ((r >>> 16) - this.threshold[slot]!) >> 31;
    const segment = alias ^ ((alias ^ slot) & mask);
    const length = this.segmentLength[segment]!;
    if (segment < this.firstTailSegment) {
      return this.segmentBase[segment]! + (((r & 0xffff) * length) >>> 16);
    }
    // Exact: a 32-bit draw times a power of two, scaled by 2^-32; truncation is exact.
    return this.segmentBase[segment]! + ((rng.next() * length * TWO_POW_MINUS_32) | 0);
  }

  /** Writes the word of `rank` at `pos`; returns its length. See copyBytes about slack. */
  writeWord(out: DataView, pos: number, rank: number): number {
    if (rank >= HEAD_SIZE) return this.composeWord(out, pos, rank);
    return this.head.write(out, pos, rank);
  }

  /**
   * The composed word of a rank (returns its length): stem, 0-2 suffixes in the stem's harmony,
   * sometimes a capital; about 1% are foreign words instead.
   */
  private composeWord(out: DataView, pos: number, rank: number): number {
    // Multiplying by an odd constant and mix32 are both bijective on 32 bits. The bits of h
    // choose stem (0-13), suffix count (14-17), capital (18-21) and foreign (22-31); g, a cheap
    // second mix whose high bits depend on all of h, chooses the suffixes.
    const h = mix32(Math.imul(rank, 0x9e3779b1) ^ this.key);
    if (h >>> 22 < 12) return writeForeignWord(out, pos, h) - pos;
    const g = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
    const stem = h & (STEM_COUNT - 1);
    let length = this.stems.write(out, pos, stem);
    const suffixRoll = (h >>> 14) & 15;
    if (suffixRoll >= 6) {
      const suffixes = suffixTables[this.stemClass[stem]!]!;
      const count = suffixes.count;
      length += suffixes.write(out, pos + length, (((g >>> 10) & 1023) * count) >>> 10);
      if (suffixRoll >= 14)
        length += suffixes.write(out, pos + length, ((g >>> 20) * count) >>> 12);
    }
    if (((h >>> 18) & 15) === 0) capitalizeAt(out, pos);
    return length;
  }
}

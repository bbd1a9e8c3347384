// Reference throughput: `npx tsx challenges/wordcount/reference/bench.ts [input | --generator] [--mib 64]`.
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { referenceOutputSha256 } from './wordcount-reference';

/**
 * Random-ish text with a Zipf-like vocabulary (a few very common words, a long tail), mostly ASCII
 * with some multi-byte words; a stand-in for the real generator so the bench needs nothing else.
 */
export function benchText(bytes: number, seed = 1): Buffer {
  let state = seed >>> 0 || 1;
  const next = (): number => {
    // xorshift32: deterministic, fast, good enough to spread words.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
  const letters = 'etaoinshrdlcumwfgypbvkjxqz';
  const vocabulary: string[] = [];
  for (let i = 0; i < 200_000; i++) {
    const length = 1 + Math.floor(next() * next() * 14);
    let word = '';
    for (let j = 0; j < length; j++) word += letters[Math.floor(next() * next() * letters.length)];
    if (i % 50 === 0) word += 'é';
    if (i % 7 === 0) word = word[0]!.toUpperCase() + word.slice(1);
    vocabulary.push(word);
  }
  const out = Buffer.allocUnsafe(bytes);
  let used = 0;
  while (used < bytes) {
    const word = vocabulary[Math.floor(vocabulary.length * next() ** 4)]!;
    used += out.write(word, used, 'utf8');
    if (used < bytes) out[used++] = next() < 0.08 ? 0x0a : 0x20;
  }
  return out;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const mibIndex = args.indexOf('--mib');
  const mib = mibIndex >= 0 ? Number(args[mibIndex + 1]) : 64;
  const useGenerator = args.includes('--generator');
  const given = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--mib');
  const dir = given ? undefined : await mkdtemp(path.join(tmpdir(), 'wordcount-bench-'));
  try {
    const input = given ?? path.join(dir!, 'bench.input');
    if (!given && useGenerator) {
      // Loaded only on request: the bench must not depend on the generator to run.
      const { code } = await import('../code');
      const { generateInputFile } = await import('../../../lib/core/challenge/challenge-code');
      await generateInputFile(code, input, {
        sizeBytes: mib * 1024 * 1024,
        seed: 'reference-bench-1',
      });
    } else if (!given) {
      await writeFile(input, benchText(mib * 1024 * 1024));
    }
    const source = given ? 'given file' : useGenerator ? 'generator' : 'synthetic text';
    const { size } = await stat(input);
    const started = process.hrtime.bigint();
    const digest = await referenceOutputSha256(input);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const mb = size / 1e6;
    console.log(
      `${source}: ${mb.toFixed(1)} MB in ${seconds.toFixed(2)} s = ${(mb / seconds).toFixed(1)} MB/s (sha256 ${digest.slice(0, 16)}…)`,
    );
  } finally {
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();

// What the wordcount package gives the judge, which finds it by this folder: its input
// generator, its independent TypeScript reference, and the word statistics of `perfjudge gen --stats`.
import type { ChallengeCode } from '../../lib/core/challenge/challenge-code';
import { WORDCOUNT_GENERATOR_VERSION, WordStats, wordcountInputChunks } from './generator';
import { referenceOutputSha256, writeReferenceOutput } from './reference/wordcount-reference';

export const code: ChallengeCode = {
  generatorVersion: WORDCOUNT_GENERATOR_VERSION,
  inputChunks: (options) => wordcountInputChunks(options),
  writeReferenceOutput: (file, out) => writeReferenceOutput(file, out),
  referenceOutputSha256: (file) => referenceOutputSha256(file),
  inputStats: () => {
    const stats = new WordStats();
    return {
      update: (chunk) => stats.update(chunk),
      finish: () => {
        const { words, distinctWords } = stats.finish();
        return [`words: ${words}`, `distinct words: ${distinctWords}`];
      },
    };
  },
};

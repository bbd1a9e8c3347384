// What the maxsubarray package gives the judge, which finds it by this folder (lib/core/challenge/challenge-code.ts).
import type { ChallengeCode } from '../../lib/core/challenge/challenge-code';
import { MAXSUBARRAY_GENERATOR_VERSION, maxSubarrayInputChunks } from './generator';
import { referenceOutputSha256, writeReferenceOutput } from './reference/maxsubarray-reference';

export const code: ChallengeCode = {
  generatorVersion: MAXSUBARRAY_GENERATOR_VERSION,
  inputChunks: ({ sizeBytes, seed }) => maxSubarrayInputChunks({ sizeBytes, seed }),
  writeReferenceOutput,
  referenceOutputSha256,
};

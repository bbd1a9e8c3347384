// The code a challenge package brings besides its files: its input generator and its reference
// implementation. The judge finds them here by slug, so the pipeline itself stays challenge-neutral.
export interface GenerateInputOptions {
  sizeBytes: number;
  seed: string;
  rareSeparators?: boolean;
}

export interface ChallengeCode {
  generatorVersion: number;
  /** Writes a deterministic input to `file`; returns its size and sha256. */
  generateInput(
    file: string,
    options: GenerateInputOptions,
  ): Promise<{ bytes: number; sha256: string }>;
  /** The sha256 of the correct output for `file`, computed independently of the C++ code. */
  referenceOutputSha256(file: string): Promise<string>;
}

const REGISTRY: Record<string, () => Promise<ChallengeCode>> = {
  wordcount: async () => {
    const generator = await import('../../challenges/wordcount/generator');
    const reference = await import('../../challenges/wordcount/reference/wordcount-reference');
    return {
      generatorVersion: generator.WORDCOUNT_GENERATOR_VERSION,
      generateInput: (file, options) => generator.generateToFile(file, options),
      referenceOutputSha256: (file) => reference.referenceOutputSha256(file),
    };
  },
};

export async function challengeCode(slug: string): Promise<ChallengeCode> {
  const load = REGISTRY[slug];
  if (!load)
    throw new Error(`challenge "${slug}" has no generator or reference implementation registered`);
  return load();
}

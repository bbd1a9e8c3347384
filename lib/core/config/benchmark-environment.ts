// What this process's environment says the benchmark definition should be: only a proposal. The
// seed (and npm start) writes it into a contest that has none; every other process compares it with
// the database's definition, says where they differ, and uses the database's.
import type { BenchmarkProposal } from '../challenge/benchmark-definition';
import { challengeSecret, env } from './env';

export function environmentBenchmarkProposal(seedEnv: string): BenchmarkProposal {
  const sizeBytes = env().PERFJUDGE_BENCHMARK_SIZE;
  const seed = challengeSecret(seedEnv);
  return {
    ...(sizeBytes !== undefined ? { sizeBytes } : {}),
    ...(seed !== undefined ? { seed } : {}),
  };
}

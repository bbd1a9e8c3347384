// Where tests and benchmarks keep what they build and generate, so one run reuses another's work.
import path from 'node:path';
import { REPO_ROOT } from '../lib/core/config/env';

/** Builds, inputs and expected outputs cached for every test run on this machine (gitignored). */
export const TEST_DATA_DIR = path.join(REPO_ROOT, '.data', 'test');

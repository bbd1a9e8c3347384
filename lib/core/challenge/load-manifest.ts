// Reads and validates a challenge manifest; a mistake stops here with the field's path in the message.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import {
  describeIssues,
  isSlug,
  manifestSchema,
  type Manifest,
  InvalidChallengeError,
} from '../../../contracts';
import { REPO_ROOT } from '../config/env';

export const CHALLENGES_DIR = path.join(REPO_ROOT, 'challenges');

export interface Challenge {
  /** Absolute path of the challenge's folder. */
  dir: string;
  manifest: Manifest;
  templateDir: string;
  harnessDir: string;
  testsDir: string;
}

export function parseManifest(raw: unknown, source: string): Manifest {
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success)
    throw new InvalidChallengeError(`Invalid manifest ${source}:\n${describeIssues(parsed.error)}`);
  return parsed.data;
}

async function loadManifestFile(file: string): Promise<Manifest> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new InvalidChallengeError(`Cannot read manifest ${file}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new InvalidChallengeError(
      `Manifest ${file} is not valid YAML: ${(error as Error).message}`,
    );
  }
  return parseManifest(raw, file);
}

/** challenges/<slug>, or a challenge folder given as a path. */
export function challengeFolder(slugOrDir: string): string {
  return isSlug(slugOrDir) ? path.join(CHALLENGES_DIR, slugOrDir) : path.resolve(slugOrDir);
}

/** Loads challenges/<slug>/manifest.yaml (or a challenge folder given as a path). */
export async function loadChallenge(slugOrDir: string): Promise<Challenge> {
  const dir = challengeFolder(slugOrDir);
  const manifest = await loadManifestFile(path.join(dir, 'manifest.yaml'));
  return {
    dir,
    manifest,
    templateDir: path.join(dir, manifest.templateDir),
    harnessDir: path.join(dir, manifest.harnessDir),
    testsDir: path.join(dir, manifest.testsDir),
  };
}

/**
 * Every challenge folder under challenges/ whose manifest loads, by slug. A folder that does not
 * load is left out here (the runners serve the others); `perfjudge manifest <slug>` says why.
 */
export async function listChallenges(): Promise<Challenge[]> {
  const entries = await readdir(CHALLENGES_DIR, { withFileTypes: true });
  const found: Challenge[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (!entry.isDirectory() || !isSlug(entry.name)) continue;
    const challenge = await loadChallenge(entry.name).catch(() => null);
    if (challenge) found.push(challenge);
  }
  return found;
}

// Resolving the <challenge> and --target arguments every challenge command takes.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { TargetId } from '../contracts';
import {
  challengeFolder,
  loadChallenge,
  type Challenge,
} from '../lib/core/challenge/load-manifest';
import { nativeTarget } from '../runner/platform';
import { UsageError } from './usage-error';

export async function resolveChallenge(slugOrDir: string): Promise<Challenge> {
  const dir = challengeFolder(slugOrDir);
  const manifest = await stat(path.join(dir, 'manifest.yaml')).catch(() => undefined);
  if (!manifest?.isFile())
    throw new UsageError(
      `unknown challenge "${slugOrDir}": there is no ${path.join(dir, 'manifest.yaml')}`,
    );
  return loadChallenge(slugOrDir);
}

export function pickTarget(challenge: Challenge, requested: TargetId | undefined): TargetId {
  const targets = challenge.manifest.targets;
  if (requested) {
    if (!targets[requested])
      throw new UsageError(
        `challenge ${challenge.manifest.slug} has no target ${requested} ` +
          `(it has: ${Object.keys(targets).join(', ')})`,
      );
    return requested;
  }
  const native = nativeTarget(targets);
  if (!native.id)
    throw new UsageError(
      `challenge ${challenge.manifest.slug} has no ${native.os} target; choose one with --target`,
    );
  return native.id;
}

// Resolving the <challenge> and --target arguments every challenge command takes.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { TARGET_IDS, type TargetId } from '../contracts';
import { challengeFolder, loadChallenge, type Challenge } from '../lib/challenge/load-manifest';
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
  const hostOs = process.platform === 'win32' ? 'windows' : 'linux';
  const native = TARGET_IDS.find((id) => targets[id]?.os === hostOs);
  if (!native)
    throw new UsageError(
      `challenge ${challenge.manifest.slug} has no ${hostOs} target; choose one with --target`,
    );
  return native;
}

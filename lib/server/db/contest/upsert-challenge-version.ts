// Registers a challenge version from its validated manifest, with its targets. Idempotent for the
// same manifest; a different manifest under an existing version is refused (bump `version`).
import { createHash } from 'node:crypto';
import type { Manifest } from '../../../../contracts';
import type { Db } from '../client';
import { ConflictError } from '../errors';
import { toJson } from '../json';

export interface UpsertedChallengeVersion {
  challengeId: string;
  challengeVersionId: string;
  created: boolean;
}

export async function upsertChallengeVersion(
  db: Db,
  manifest: Manifest,
): Promise<UpsertedChallengeVersion> {
  // Parsed manifests list their keys in schema order, so the same manifest hashes the same.
  const manifestSha256 = createHash('sha256').update(JSON.stringify(manifest)).digest('hex');
  return db.$transaction(async (tx) => {
    const challenge = await tx.challenge.upsert({
      where: { slug: manifest.slug },
      create: { slug: manifest.slug, title: manifest.title },
      update: { title: manifest.title },
      select: { id: true },
    });
    const existing = await tx.challengeVersion.findUnique({
      where: { challengeId_version: { challengeId: challenge.id, version: manifest.version } },
      select: { id: true, manifestSha256: true },
    });
    if (existing) {
      if (existing.manifestSha256 !== manifestSha256)
        throw new ConflictError(
          `Challenge ${manifest.slug} version ${manifest.version} is already registered with a different manifest: bump its version`,
        );
      return { challengeId: challenge.id, challengeVersionId: existing.id, created: false };
    }
    const version = await tx.challengeVersion.create({
      data: {
        challengeId: challenge.id,
        version: manifest.version,
        manifest: toJson(manifest),
        manifestSha256,
        scoringFormula: manifest.scoring.formula === 'geomean' ? 'GEOMEAN' : 'SUM',
        targets: {
          create: Object.entries(manifest.targets).map(([name, target]) => ({
            name,
            os: target.os,
            cpuVendor: target.cpuVendor,
          })),
        },
      },
      select: { id: true },
    });
    return { challengeId: challenge.id, challengeVersionId: version.id, created: true };
  });
}

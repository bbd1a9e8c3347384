// Stores a host's baseline measurement for a challenge version and target, replacing the previous
// one of the same host (a changed host has a different fingerprint hash, hence its own row).
import type { HostFingerprint } from '../../../../contracts';
import type { Db } from '../client';
import { NotFoundError } from '../errors';
import { hostFingerprintHash } from '../../../../contracts/host-fingerprint-hash';
import { toJson } from '../json';

export interface RecordHostCalibrationOptions {
  challengeSlug: string;
  version: number;
  target: string;
  host: HostFingerprint;
  baselineMedianMs: number;
  runs: number;
  measuredAt: Date;
}

export async function recordHostCalibration(
  db: Db,
  options: RecordHostCalibrationOptions,
): Promise<{ calibrationId: string; hostFingerprintHash: string }> {
  const target = await db.target.findFirst({
    where: {
      name: options.target,
      challengeVersion: { version: options.version, challenge: { slug: options.challengeSlug } },
    },
    select: { id: true, challengeVersionId: true },
  });
  if (!target)
    throw new NotFoundError(
      `No target ${options.target} in ${options.challengeSlug} v${options.version}`,
    );
  const hash = hostFingerprintHash(options.host);
  const values = {
    hostFingerprint: toJson(options.host),
    baselineMedianMs: options.baselineMedianMs,
    runs: options.runs,
    measuredAt: options.measuredAt,
  };
  const row = await db.hostCalibration.upsert({
    where: {
      hostFingerprintHash_challengeVersionId_targetId: {
        hostFingerprintHash: hash,
        challengeVersionId: target.challengeVersionId,
        targetId: target.id,
      },
    },
    create: {
      hostFingerprintHash: hash,
      challengeVersionId: target.challengeVersionId,
      targetId: target.id,
      ...values,
    },
    update: values,
    select: { id: true },
  });
  return { calibrationId: row.id, hostFingerprintHash: hash };
}

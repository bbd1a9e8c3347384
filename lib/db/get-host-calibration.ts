// A host's stored baseline for a challenge version and target, or null when it must be measured.
import type { Db } from './client';

export interface GetHostCalibrationOptions {
  hostFingerprintHash: string;
  challengeSlug: string;
  version: number;
  target: string;
}

export interface HostCalibrationData {
  baselineMedianMs: number;
  runs: number;
  measuredAt: Date;
}

export async function getHostCalibration(
  db: Db,
  options: GetHostCalibrationOptions,
): Promise<HostCalibrationData | null> {
  return db.hostCalibration.findFirst({
    where: {
      hostFingerprintHash: options.hostFingerprintHash,
      target: {
        name: options.target,
        challengeVersion: { version: options.version, challenge: { slug: options.challengeSlug } },
      },
    },
    select: { baselineMedianMs: true, runs: true, measuredAt: true },
  });
}

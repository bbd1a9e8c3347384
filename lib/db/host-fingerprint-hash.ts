// A stable hash of the parts of a host fingerprint that change timings: same hash, same calibration.
// Pure (no database), so a runner can compute it too.
import { createHash } from 'node:crypto';
import type { HostFingerprint } from '../../contracts';

export function hostFingerprintHash(host: HostFingerprint): string {
  // Labels (devMode, emulated) and tool versions that do not time anything are left out on purpose.
  const identity = [
    host.hostname,
    host.os,
    host.kernel,
    host.cpuModel,
    host.cpuVendor,
    host.cores,
    host.compiler,
    host.governor,
    host.turbo,
    host.sandbox,
    host.pinnedCpu,
    host.thp,
  ];
  return createHash('sha256').update(JSON.stringify(identity)).digest('hex');
}

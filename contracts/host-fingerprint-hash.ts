// A stable hash of the parts of a host fingerprint that change timings: same hash, same calibration.
// Shared by the database (judgings, calibrations) and the runner (the host of each final round), so
// both name a host alike. Not in contracts/index: it needs node:crypto, which the browser has not.
import { createHash } from 'node:crypto';
import type { HostFingerprint } from './judging';

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

// Moved to contracts/ so a runner can name a host the same way (final rounds); kept for lib/db's imports.
export { hostFingerprintHash } from '../../contracts/host-fingerprint-hash';

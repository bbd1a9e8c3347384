// Patch intake on a judge host: the core's checks (lib/core/intake), then the patch applied to a copy of
// the template with `git apply` (see intakePatch).
export { applyPatch, DEFAULT_PATH_ENV } from './apply-patch';
export { intakePatch } from './intake-patch';

// Patch intake's rules, shared by the web app (checks before storing) and the runners (checks before
// applying): parsing, path and size rules, rejection reasons, the result's schema. Applying a patch
// with `git apply` is the judge library's (runner/intake).
export * from './reasons';
export * from './result';
export * from './glob';
export { parsePatch } from './parse-patch';
export type { FileChange, ParsedPatch, PatchMail } from './parse-patch';
export { showPath } from './paths';
export type { IntakeRules } from './validate-patch';
export { listFiles, walkTree } from './file-tree';
export { inspectPatch, patchBuffer, tooLarge } from './inspect-patch';

// Patch intake's rules, shared by the web app (checks before storing) and the runners (checks before
// applying): parsing, path and size rules, rejection reasons, the result's schema. Applying a patch
// with `git apply` is the judge library's (runner/intake).
export * from './reasons';
export * from './result';
export * from './glob';
export { EMPTY_PATCH_MESSAGE } from './empty-patch';
export { parsePatch } from './parse-patch';
export type {
  ChangeKind,
  FileChange,
  Hunk,
  HunkLine,
  ParsedPatch,
  ParseOptions,
  PatchMail,
} from './parse-patch';
export { showPath } from './paths';
export { validatePatch } from './validate-patch';
export type { IntakeRules, ValidatedPatch } from './validate-patch';
export { listFiles, walkTree } from './file-tree';
export type { TreeEntry } from './file-tree';
export { inspectPatch, patchBuffer, tooLarge } from './inspect-patch';
export type { InspectedPatch } from './inspect-patch';

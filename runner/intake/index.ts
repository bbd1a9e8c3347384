// Patch intake: parse, validate and apply a contestant's patch (see intakePatch).
export * from './reasons';
export * from './result';
export * from './glob';
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
export { validatePatch } from './validate-patch';
export type { IntakeRules, ValidatedPatch } from './validate-patch';
export { applyPatch, applyParsedPatch, listFiles, walkTree, DEFAULT_PATH_ENV } from './apply-patch';
export type { ApplyPatchOptions, GitOptions, TreeEntry } from './apply-patch';
export { inspectPatch, intakePatch } from './intake-patch';
export type {
  InspectedPatch,
  IntakeChallenge,
  IntakeManifest,
  IntakeOptions,
} from './intake-patch';

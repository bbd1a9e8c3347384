// Checks a parsed patch against the challenge's rules, file by file in the order the changes apply,
// and works out which files exist afterwards (so the applied tree can be checked against it).
import { firstMatchingGlob } from './glob';
import { ancestors, showPath, unsafePathProblem } from './paths';
import type { FileChange, ParsedPatch } from './parse-patch';
import { reject } from './reasons';
import type { ChangedFile } from './result';

export interface IntakeRules {
  editableFiles: readonly string[];
  allowedNewFiles: readonly string[];
  protectedPaths: readonly string[];
  /** Every file of the pristine template, relative to its root. */
  templateFiles: readonly string[];
  /** Files the judge adds next to the contestant's (the harness); protected like protectedPaths. */
  harnessFiles?: readonly string[];
}

export interface ValidatedPatch {
  files: ChangedFile[];
  /** The template's files after the whole patch: what the applied tree must hold. */
  finalFiles: string[];
}

const REGULAR_MODE = '100644';

function where(change: FileChange, mails: number): string {
  return mails > 1 ? ` (mail ${change.mail})` : '';
}

class Validator {
  private readonly present: Set<string>;
  /** Lower-cased name → name, to find case twins without scanning every file. */
  private readonly lowerCase = new Map<string, string>();
  private readonly summary = new Map<string, ChangedFile>();

  constructor(
    private readonly rules: IntakeRules,
    private readonly mails: number,
  ) {
    this.present = new Set();
    for (const file of rules.templateFiles) this.addPresent(file);
  }

  private addPresent(path: string): void {
    this.present.add(path);
    this.lowerCase.set(path.toLowerCase(), path);
  }

  private removePresent(path: string): void {
    this.present.delete(path);
    if (this.lowerCase.get(path.toLowerCase()) === path) this.lowerCase.delete(path.toLowerCase());
  }

  private checkSafe(path: string, change: FileChange): void {
    const problem = unsafePathProblem(path);
    if (problem)
      reject('unsafe-path', `${showPath(path)}${where(change, this.mails)}: ${problem}`, path);
  }

  /** Protected: a harness path, anything inside or named like one, or a template file not editable. */
  private checkNotProtected(path: string, change: FileChange, action: string): void {
    const { protectedPaths, harnessFiles = [], templateFiles, editableFiles } = this.rules;
    const harness = new Set(harnessFiles.map((file) => file.toLowerCase()));
    for (const candidate of [path, ...ancestors(path)]) {
      const pattern = firstMatchingGlob(candidate, protectedPaths, { caseInsensitive: true });
      const isHarness = harness.has(candidate.toLowerCase());
      if (pattern !== undefined || isHarness) {
        const rule = pattern !== undefined ? `protected path "${pattern}"` : 'a harness file';
        const subject = candidate === path ? '' : ` (inside ${showPath(candidate)})`;
        reject(
          'protected-file',
          `${showPath(path)}${where(change, this.mails)}: a patch may not ${action} this file${subject}: it belongs to the judge (${rule})`,
          path,
        );
      }
    }
    if (templateFiles.includes(path) && !editableFiles.includes(path))
      reject(
        'protected-file',
        `${showPath(path)}${where(change, this.mails)}: a patch may not ${action} this template file; only ${editableFiles.join(', ')} are editable`,
        path,
      );
  }

  private checkModes(path: string, change: FileChange): void {
    const modes = [change.oldMode, change.newMode];
    const at = `${showPath(path)}${where(change, this.mails)}`;
    if (modes.includes('120000'))
      reject('symlink', `${at}: symbolic links are not accepted; send regular files`, path);
    if (modes.includes('160000'))
      reject(
        'submodule',
        `${at}: submodules are not accepted; add the library's files instead`,
        path,
      );
    if (
      change.oldMode !== undefined &&
      change.newMode !== undefined &&
      change.oldMode !== change.newMode
    )
      reject(
        'mode-change',
        `${at}: the patch changes the file mode from ${change.oldMode} to ${change.newMode}; only content changes are accepted`,
        path,
      );
    if (change.kind === 'add' && change.newMode !== undefined && change.newMode !== REGULAR_MODE)
      reject(
        'mode-change',
        `${at}: the patch adds the file with mode ${change.newMode}; new files must be regular, non-executable files (${REGULAR_MODE})`,
        path,
      );
    if (change.binary)
      reject('binary', `${at}: binary changes are not accepted; the patch must be text`, path);
  }

  /** A file the patch writes: an editable template file or an allowed new file. */
  private checkWritable(path: string, change: FileChange): void {
    const { editableFiles, allowedNewFiles } = this.rules;
    if (editableFiles.includes(path) || firstMatchingGlob(path, allowedNewFiles) !== undefined)
      return;
    reject(
      'not-allowed',
      `${showPath(path)}${where(change, this.mails)}: not an editable file (${editableFiles.join(', ')}) and not a new file a patch may add (${allowedNewFiles.join(', ')})`,
      path,
    );
  }

  /** A file the patch removes: never an editable template file. */
  private checkRemovable(path: string, change: FileChange, verb: 'delete' | 'rename'): void {
    const { editableFiles, allowedNewFiles } = this.rules;
    if (editableFiles.includes(path))
      reject(
        'deletes-required-file',
        `${showPath(path)}${where(change, this.mails)}: the patch ${verb === 'delete' ? 'deletes' : 'renames away'} an editable template file; ${editableFiles.join(', ')} must stay (empty a file's code instead)`,
        path,
      );
    if (firstMatchingGlob(path, allowedNewFiles) === undefined)
      reject(
        'not-allowed',
        `${showPath(path)}${where(change, this.mails)}: the patch may only ${verb} files it added itself`,
        path,
      );
  }

  /** Two names differing only in case are one file on Windows. */
  private checkNoCaseTwin(path: string, change: FileChange): void {
    const other = this.lowerCase.get(path.toLowerCase());
    if (other !== undefined && other !== path)
      reject(
        'unsafe-path',
        `${showPath(path)}${where(change, this.mails)}: differs from ${showPath(other)} only in letter case; they would be one file on Windows`,
        path,
      );
  }

  private count(change: FileChange): { additions: number; deletions: number } {
    let additions = 0;
    let deletions = 0;
    for (const hunk of change.hunks)
      for (const line of hunk.lines) {
        if (line.op === 'add') additions++;
        else if (line.op === 'remove') deletions++;
      }
    return { additions, deletions };
  }

  /** Checks run in this order, so a contestant hears the most fundamental problem first. */
  check(change: FileChange): void {
    const paths = [change.oldPath, change.newPath, change.copyFrom].filter(
      (p): p is string => p !== null && p !== undefined,
    );
    for (const path of paths) this.checkSafe(path, change);
    const main = (change.newPath ?? change.oldPath)!;
    if (change.kind === 'delete' || change.kind === 'rename')
      this.checkNotProtected(change.oldPath!, change, change.kind);
    if (change.kind !== 'delete')
      this.checkNotProtected(main, change, change.kind === 'modify' ? 'change' : 'create');
    this.checkModes(main, change);
    if (change.kind === 'delete' || change.kind === 'rename')
      this.checkRemovable(change.oldPath!, change, change.kind);
    if (change.kind !== 'delete') this.checkWritable(main, change);
    if (change.kind === 'add' || change.kind === 'rename') this.checkNoCaseTwin(main, change);
    this.record(change);
  }

  private record(change: FileChange): void {
    const { additions, deletions } = this.count(change);
    const { summary, present } = this;
    const bump = (entry: ChangedFile) => {
      entry.additions += additions;
      entry.deletions += deletions;
    };
    const templateHas = (path: string) => this.rules.templateFiles.includes(path);
    // A plain diff creates a file with a `-0,0` hunk on a name that does not exist yet, as git does.
    const createsByHunk =
      change.kind === 'modify' &&
      change.style === 'traditional' &&
      !present.has(change.newPath!) &&
      change.hunks.length === 1 &&
      change.hunks[0]!.oldLines === 0;
    const kind = createsByHunk ? 'add' : change.kind;

    if (kind === 'modify') {
      const path = change.newPath!;
      const entry = summary.get(path) ?? { path, change: 'modified', additions: 0, deletions: 0 };
      bump(entry);
      summary.set(path, entry);
    } else if (kind === 'add') {
      const path = change.newPath!;
      const previous = summary.get(path);
      // Deleted and added again: the template file is modified in the end.
      const entry: ChangedFile =
        previous?.change === 'deleted' || templateHas(path)
          ? { path, change: 'modified', additions: 0, deletions: 0 }
          : { path, change: 'added', additions: 0, deletions: 0 };
      bump(entry);
      summary.set(path, entry);
      this.addPresent(path);
    } else if (kind === 'delete') {
      const path = change.oldPath!;
      const previous = summary.get(path);
      if (previous?.change === 'added') summary.delete(path);
      else if (previous?.change === 'renamed' && previous.from !== undefined) {
        summary.delete(path);
        summary.set(previous.from, {
          path: previous.from,
          change: 'deleted',
          additions: 0,
          deletions: 0,
        });
      } else summary.set(path, { path, change: 'deleted', additions: 0, deletions: 0 });
      this.removePresent(path);
    } else {
      const from = change.oldPath!;
      const to = change.newPath!;
      const previous = summary.get(from);
      summary.delete(from);
      const origin =
        previous?.change === 'renamed'
          ? previous.from
          : previous?.change === 'added'
            ? undefined
            : from;
      const entry: ChangedFile =
        origin === undefined
          ? {
              path: to,
              change: 'added',
              additions: previous?.additions ?? 0,
              deletions: previous?.deletions ?? 0,
            }
          : {
              path: to,
              change: 'renamed',
              from: origin,
              additions: previous?.additions ?? 0,
              deletions: previous?.deletions ?? 0,
            };
      bump(entry);
      summary.set(to, entry);
      this.removePresent(from);
      this.addPresent(to);
    }
  }

  result(): ValidatedPatch {
    return { files: [...this.summary.values()], finalFiles: [...this.present].sort() };
  }
}

/** Throws IntakeRejectionError for the first change, in patch order, that breaks a rule. */
export function validatePatch(patch: ParsedPatch, rules: IntakeRules): ValidatedPatch {
  const validator = new Validator(rules, patch.mails.length);
  for (const change of patch.files) validator.check(change);
  return validator.result();
}

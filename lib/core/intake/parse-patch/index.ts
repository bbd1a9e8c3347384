// Parses what contestants send: `git diff` output, a `git format-patch` series, or a plain `diff -u`.
// The bytes handed to `git apply` later are exactly the sections parsed here, so git never acts on
// text this parser did not see and validate (a diff hidden in a commit message, trailing junk).
import type { PatchFormat } from '../result';
import { EMPTY_PATCH_MESSAGE } from '../empty-patch';
import { reject } from '../reasons';
import { MAIL_FROM_LINE, PatchLines } from './lines';
import { parseMails, type RawMail } from './mails';
import { resolveSection } from './resolve';
import { scanSections } from './sections';
import type { FileChange, ParsedPatch, ParseOptions, RawSection } from './types';

export type { FileChange, ParsedPatch, ParseOptions, PatchMail } from './types';

function levelScore(changes: FileChange[], knownFiles: ReadonlySet<string>): number {
  let score = 0;
  for (const change of changes) {
    if (change.oldPath !== null && knownFiles.has(change.oldPath)) score++;
    if (change.copyFrom !== undefined && knownFiles.has(change.copyFrom)) score++;
  }
  return score;
}

function sliceOf(text: string, sections: RawSection[]): Buffer {
  const parts = sections.map((section) => {
    const part = text.slice(section.start, section.end);
    return Buffer.from(part.endsWith('\n') ? part : `${part}\n`, 'latin1');
  });
  return Buffer.concat(parts);
}

/**
 * Parses a patch. Throws IntakeRejectionError ('empty', 'not-a-patch', 'malformed', 'unsafe-path'
 * for names that are not UTF-8); everything else about the changes is validatePatch's job.
 */
/** Every section's change at `level`, or undefined when the level cannot make sense of a name. */
function resolveAll(
  parser: PatchLines,
  sections: RawSection[],
  level: number,
): FileChange[] | undefined {
  const changes: FileChange[] = [];
  for (const section of sections) {
    const change = resolveSection(parser, section, level);
    if (!change) return undefined;
    changes.push(change);
  }
  return changes;
}

export function parsePatch(input: Buffer | string, options: ParseOptions = {}): ParsedPatch {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  let text = bytes.toString('latin1');
  if (text.startsWith('\xEF\xBB\xBF')) text = text.slice(3);
  if (text.trim() === '') reject('empty', EMPTY_PATCH_MESSAGE);

  const parser = new PatchLines(text);
  const firstLine = parser.lines.find((line) => line.text.trim() !== '');
  const isSeries = firstLine !== undefined && MAIL_FROM_LINE.test(firstLine.text);
  const rawMails: RawMail[] = isSeries
    ? parseMails(parser)
    : [{ index: 1, sections: scanSections(parser, 0, parser.lines.length, 1) }];
  const sections = rawMails.flatMap((mail) => mail.sections);
  if (sections.length === 0)
    reject(
      'not-a-patch',
      'no diff found: send the output of git diff, git format-patch, or diff -u against the template',
    );

  const knownFiles = new Set(options.knownFiles ?? []);
  const levels = options.stripLevel !== undefined ? [options.stripLevel] : [1, 0];
  let best: { level: number; changes: FileChange[]; score: number } | undefined;
  let firstError: unknown;
  for (const level of levels) {
    try {
      const changes = resolveAll(parser, sections, level);
      if (!changes) continue;
      const score = levelScore(changes, knownFiles);
      if (!best || score > best.score) best = { level, changes, score };
    } catch (error) {
      firstError ??= error;
    }
  }
  if (!best) {
    if (firstError) throw firstError;
    reject(
      'malformed',
      'the file names in the patch have too few components for -p1 or -p0 (expected a/file b/file or file)',
    );
  }

  let offset = 0;
  const mails = rawMails.map((mail) => {
    const files = best.changes.slice(offset, offset + mail.sections.length);
    offset += mail.sections.length;
    return {
      index: mail.index,
      ...(mail.subject !== undefined ? { subject: mail.subject } : {}),
      files,
      applyText: sliceOf(text, mail.sections),
    };
  });
  const format: PatchFormat = isSeries
    ? 'format-patch'
    : sections.some((section) => section.style === 'git')
      ? 'git-diff'
      : 'unified';
  return { format, stripLevel: best.level, mails, files: best.changes };
}

// A `git format-patch` series: its mails, their subjects and the diff after each commit message.
import { display, MAIL_FROM_LINE, type PatchLines } from './lines';
import { scanSections } from './sections';
import type { RawSection } from './types';

export interface RawMail {
  index: number;
  subject?: string;
  sections: RawSection[];
}

export function parseMails(parser: PatchLines): RawMail[] {
  const { lines } = parser;
  const starts = lines.flatMap((line, i) => (MAIL_FROM_LINE.test(line.text) ? [i] : []));
  const mails: RawMail[] = [];
  starts.forEach((start, n) => {
    const end = starts[n + 1] ?? lines.length;
    let i = start + 1;
    let subject: string | undefined;
    let lastHeader = '';
    for (; i < end && parser.at(i) !== ''; i++) {
      const text = parser.at(i)!;
      if (/^\s/.test(text) && lastHeader === 'subject') subject = `${subject ?? ''} ${text.trim()}`;
      const header = /^([A-Za-z-]+):\s*(.*)$/.exec(text);
      if (!header) continue;
      lastHeader = header[1]!.toLowerCase();
      if (lastHeader === 'subject') subject = header[2]!;
      if (
        lastHeader === 'content-transfer-encoding' &&
        !/^(7bit|8bit|binary)$/i.test(header[2]!.trim())
      )
        parser.malformed(
          i,
          `mail ${n + 1} is ${header[2]!.trim()}-encoded; send the output of git format-patch as it is`,
        );
    }
    // The diff starts after the `---` that ends the commit message, as `git am` reads a mail.
    let body = i;
    for (let k = i; k < end; k++) {
      if (parser.at(k) === '---') {
        body = k + 1;
        break;
      }
    }
    const sections = scanSections(parser, body, end, mails.length + 1);
    const cleanSubject = subject === undefined ? undefined : display(subject.trim());
    if (sections.length === 0) {
      // A cover letter (`[PATCH 0/2]`) carries no diff and is skipped.
      if (cleanSubject !== undefined && /^\[[^\]]*\b0+\/\d+\]/.test(cleanSubject)) return;
      parser.malformed(start, `mail ${n + 1} (${cleanSubject ?? 'no subject'}) contains no diff`);
    }
    mails.push({
      index: mails.length + 1,
      ...(cleanSubject !== undefined
        ? { subject: cleanSubject.replace(/^\[[^\]]*\]\s*/, '') }
        : {}),
      sections,
    });
  });
  return mails;
}

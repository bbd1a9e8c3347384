// Writes one synthetic Hungarian Wikipedia XML dump page at a time into a byte buffer: XML
// headers, wikitext prose with links, templates, references, tables and lists.
import {
  DUMP_HEADER,
  HEADINGS,
  INFOBOX_FIELDS,
  MONTHS,
  NUMBER_SUFFIXES,
  TAIL_SECTIONS,
  TEMPLATES,
  URL_HOSTS,
} from './lexicon';
import type { Xoshiro128 } from './prng';
import { capitalizeAt, copyBytes, COPY_SLACK, PiecePool, type Vocabulary } from './vocabulary';

/**
 * A page stops adding sections and paragraphs once it is this long (real pages never get near it).
 * Everything added after the last check is bounded (a paragraph or list < 200 KiB, the tail and
 * footer < 32 KiB), so no page exceeds MAX_PAGE_BYTES, the headroom the output buffer keeps.
 */
const PAGE_SOFT_LIMIT = 512 * 1024;
const MAX_PAGE_BYTES = 1024 * 1024;

const lits = new PiecePool();
const L = {
  pageOpen: lits.add('  <page>'),
  pageClose: lits.add('  </page>'),
  titleOpen: lits.add('    <title>'),
  titleClose: lits.add('</title>'),
  ns: lits.addAll(['    <ns>0</ns>', '    <ns>14</ns>', '    <ns>10</ns>', '    <ns>2</ns>']),
  nsPrefix: lits.addAll(['', 'Kategória:', 'Sablon:', 'Szerkesztő:']),
  pageIdOpen: lits.add('    <id>'),
  idClose: lits.add('</id>'),
  redirectOpen: lits.add('    <redirect title="'),
  redirectClose: lits.add('" />'),
  revisionOpen: lits.add('    <revision>'),
  revisionClose: lits.add('    </revision>'),
  revIdOpen: lits.add('      <id>'),
  parentOpen: lits.add('      <parentid>'),
  parentClose: lits.add('</parentid>'),
  timestampOpen: lits.add('      <timestamp>'),
  timestampClose: lits.add('</timestamp>'),
  contributorOpen: lits.add('      <contributor>'),
  contributorClose: lits.add('      </contributor>'),
  usernameOpen: lits.add('        <username>'),
  usernameClose: lits.add('</username>'),
  userIdOpen: lits.add('        <id>'),
  ipOpen: lits.add('        <ip>'),
  ipClose: lits.add('</ip>'),
  minor: lits.add('      <minor />'),
  commentOpen: lits.add('      <comment>'),
  commentClose: lits.add('</comment>'),
  model: lits.add('      <model>wikitext</model>'),
  format: lits.add('      <format>text/x-wiki</format>'),
  textOpen: lits.add('      <text bytes="'),
  textOpenEnd: lits.add('" xml:space="preserve">'),
  textClose: lits.add('</text>'),
  sha1Open: lits.add('      <sha1>'),
  sha1Close: lits.add('</sha1>'),
  redirectText: lits.add('#ÁTIRÁNYÍTÁS [['),
  linkOpen: lits.add('[['),
  linkClose: lits.add(']]'),
  templateOpen: lits.add('{{'),
  templateClose: lits.add('}}'),
  bold: lits.add("'''"),
  italic: lits.add("''"),
  quoteOpen: lits.add('„'),
  quoteClose: lits.add('”'),
  xmlQuote: lits.add('&quot;'),
  dash: lits.add('–'),
  nbsp: lits.add('\u00a0'),
  amp: lits.add('&amp;'),
  nbspEntity: lits.add('&amp;nbsp;'),
  refOpen: lits.add('&lt;ref&gt;'),
  refClose: lits.add('&lt;/ref&gt;'),
  refNamedOpen: lits.add('&lt;ref name=&quot;'),
  refNamedClose: lits.add('&quot; /&gt;'),
  citeWeb: lits.add('{{cite web |url='),
  citeTitle: lits.add(' |title='),
  citeAccess: lits.add(' |accessdate='),
  headingOpen: lits.addAll(['== ', '=== ', '==']),
  headingClose: lits.addAll([' ==', ' ===', '==']),
  fieldOpen: lits.addAll(['| ', '|', ' | ']),
  fieldEq: lits.addAll([' = ', '=', '\t= ', ' =']),
  listItem: lits.addAll(['* ', '# ', '*', ':']),
  tableOpen: lits.add('{| class=&quot;wikitable sortable&quot;'),
  tableRow: lits.add('|-'),
  tableHeader: lits.add('! '),
  tableHeaderSep: lits.add(' !! '),
  tableCell: lits.add('| '),
  tableCellSep: lits.add(' || '),
  tableClose: lits.add('|}'),
  category: lits.add('[[Kategória:'),
  portal: lits.add('{{Portál|'),
  file: lits.add('[[Fájl:'),
  fileTail: lits.add('|bélyegkép|jobbra|'),
  base64Head: lits.add('data:image/png;base64,'),
  percent: lits.add('%'),
  jegyzetek: lits.add('{{jegyzetek}}'),
  defaultSort: lits.add('{{DEFAULTSORT:'),
  headings: lits.addAll(HEADINGS),
  tailSections: lits.addAll(TAIL_SECTIONS),
  templates: lits.addAll(TEMPLATES),
  fields: lits.addAll(INFOBOX_FIELDS),
  months: lits.addAll(MONTHS),
  numberSuffixes: lits.addAll(NUMBER_SUFFIXES),
  hosts: lits.addAll(URL_HOSTS),
  header: lits.add(DUMP_HEADER),
};
lits.freeze();
const litView = lits.view;
const litStart = lits.start;
const litEnd = lits.end;

// Alphabets of exactly 64 characters: one draw gives five of them.
const URL_CHARS = new TextEncoder().encode(
  'abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrst-_/.=?&%',
);
const BASE64_CHARS = new TextEncoder().encode(
  'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/',
);
if (URL_CHARS.length !== 64 || BASE64_CHARS.length !== 64)
  throw new Error('alphabets must have 64 characters');
const BASE36_CHARS = new TextEncoder().encode('0123456789abcdefghijklmnopqrstuvwxyz');

const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const VT = 0x0b;
const FF = 0x0c;

/** One of `ids` chosen by 16 bits of `draw` (multiply-shift: integer-only, no slow modulo). */
function pickId(ids: Int32Array, draw: number): number {
  return ids[((draw & 0xffff) * ids.length) >>> 16]!;
}

export class DumpWriter {
  /** Output bytes; the caller drains [0, pos) and resets pos between pages. */
  readonly out: Uint8Array;
  private readonly view: DataView;
  pos = 0;
  private pageId = 1;
  private revisionId = 1_000_000;
  /** With rare separators on, some pages end their lines with \r\n. */
  private crlf = false;

  constructor(
    private readonly vocab: Vocabulary,
    private readonly rng: Xoshiro128,
    private readonly rareSeparators: boolean,
    capacity: number,
  ) {
    // Slack at the end for copyBytes, which may write past the end of a word.
    this.out = new Uint8Array(capacity + MAX_PAGE_BYTES + COPY_SLACK);
    this.view = new DataView(this.out.buffer);
  }

  header(): void {
    this.lit(L.header);
  }

  page(): void {
    const rng = this.rng;
    this.crlf = this.rareSeparators && rng.below(12) === 0;
    this.pageId += 1 + rng.below(40);
    this.revisionId += 1 + rng.below(4000);
    const nsRoll = rng.below(100);
    const ns = nsRoll < 90 ? 0 : nsRoll < 95 ? 1 : nsRoll < 98 ? 2 : 3;

    const pageStart = this.pos;
    this.lit(L.pageOpen);
    this.eol();
    const { titleStart, titleEnd, redirect } = this.pageHead(ns);
    this.lit(L.revisionOpen);
    this.eol();
    this.revisionHead();
    this.lit(L.textOpen);
    this.int(rng.below(120000));
    this.lit(L.textOpenEnd);
    if (redirect) {
      this.lit(L.redirectText);
      this.copyWithin(redirect.start, redirect.end);
      this.lit(L.linkClose);
    } else {
      this.body(pageStart, titleStart, titleEnd);
    }
    this.lit(L.textClose);
    this.eol();
    this.lit(L.sha1Open);
    for (let i = 0; i < 31; i++) this.byte(BASE36_CHARS[rng.below(36)]!);
    this.lit(L.sha1Close);
    this.eol();
    this.lit(L.revisionClose);
    this.eol();
    this.lit(L.pageClose);
    this.eol();
  }

  /**
   * The page's title, namespace, id and redirect lines; where the title and the redirect's target
   * were written, for the text to repeat them.
   */
  private pageHead(ns: number): {
    titleStart: number;
    titleEnd: number;
    redirect: { start: number; end: number } | undefined;
  } {
    this.lit(L.titleOpen);
    const titleStart = this.pos;
    this.lit(L.nsPrefix[ns]!);
    this.title();
    const titleEnd = this.pos;
    this.lit(L.titleClose);
    this.eol();
    this.lit(L.ns[ns]!);
    this.eol();
    this.lit(L.pageIdOpen);
    this.int(this.pageId);
    this.lit(L.idClose);
    this.eol();
    if (!(ns === 0 && this.rng.below(100) < 12))
      return { titleStart, titleEnd, redirect: undefined };
    this.lit(L.redirectOpen);
    const start = this.pos;
    this.title();
    const end = this.pos;
    this.lit(L.redirectClose);
    this.eol();
    return { titleStart, titleEnd, redirect: { start, end } };
  }

  /** The revision's id, parent, timestamp, contributor, minor flag, comment, model and format. */
  private revisionHead(): void {
    const rng = this.rng;
    this.lit(L.revIdOpen);
    this.int(this.revisionId);
    this.lit(L.idClose);
    this.eol();
    if (rng.below(10) !== 0) {
      this.lit(L.parentOpen);
      this.int(this.revisionId - 1 - rng.below(100000));
      this.lit(L.parentClose);
      this.eol();
    }
    this.lit(L.timestampOpen);
    this.timestamp();
    this.lit(L.timestampClose);
    this.eol();
    this.contributor();
    if (rng.below(10) < 3) {
      this.lit(L.minor);
      this.eol();
    }
    if (rng.below(10) < 7) {
      this.lit(L.commentOpen);
      this.words(1 + rng.below(8));
      this.lit(L.commentClose);
      this.eol();
    }
    this.lit(L.model);
    this.eol();
    this.lit(L.format);
    this.eol();
  }

  /** A registered user (name and id), or an IP address for an anonymous edit. */
  private contributor(): void {
    const rng = this.rng;
    this.lit(L.contributorOpen);
    this.eol();
    if (rng.below(100) < 85) {
      this.lit(L.usernameOpen);
      this.username();
      this.lit(L.usernameClose);
      this.eol();
      this.lit(L.userIdOpen);
      this.int(1 + rng.below(2_000_000));
      this.lit(L.idClose);
    } else {
      this.lit(L.ipOpen);
      this.ip();
      this.lit(L.ipClose);
    }
    this.eol();
    this.lit(L.contributorClose);
    this.eol();
  }

  private body(pageStart: number, titleStart: number, titleEnd: number): void {
    const rng = this.rng;
    if (rng.below(100) < 30) this.infobox();
    if (rng.below(100) < 15) this.fileLink();
    // Lead paragraph: the bolded title, then prose.
    this.lit(L.bold);
    this.copyWithin(titleStart, titleEnd);
    this.lit(L.bold);
    this.byte(SPACE);
    this.paragraph(1 + rng.below(5), false);
    // Section count is heavy-tailed: most articles are stubs, a few are long.
    const sections = rng.below(1 + (1 << rng.below(5)));
    for (let s = 0; s < sections && this.pos - pageStart < PAGE_SOFT_LIMIT; s++) {
      this.blankLine();
      this.heading();
      const kind = rng.below(100);
      if (kind < 84) {
        const paragraphs = 1 + rng.below(5);
        for (let p = 0; p < paragraphs && this.pos - pageStart < PAGE_SOFT_LIMIT; p++) {
          if (p > 0) this.blankLine();
          this.paragraph(1 + rng.below(8), true);
        }
      } else if (kind < 96) {
        this.list();
      } else {
        this.table();
      }
    }
    if (rng.below(100) < 2) this.longToken();
    this.blankLine();
    this.tail();
  }

  private infobox(): void {
    const rng = this.rng;
    this.lit(L.templateOpen);
    this.lit(L.templates[rng.below(5)]!); // the first five are infoboxes
    this.eol();
    const fields = 4 + rng.below(12);
    const style = rng.below(4);
    for (let i = 0; i < fields; i++) {
      this.lit(L.fieldOpen[style % 3]!);
      this.lit(pickId(L.fields, rng.next()));
      this.lit(L.fieldEq[style]!);
      const v = rng.below(10);
      if (v < 3) this.number(rng.next());
      else if (v < 5) this.link(1 + rng.below(2));
      else if (v < 9) this.words(1 + rng.below(3));
      if (rng.below(40) === 0) this.byte(SPACE);
      this.eol();
    }
    this.lit(L.templateClose);
    this.eol();
  }

  private fileLink(): void {
    this.lit(L.file);
    this.words(1 + this.rng.below(3));
    this.byte(0x2e);
    this.ascii(this.rng.below(3) === 0 ? 'png' : 'jpg');
    this.lit(L.fileTail);
    this.words(2 + this.rng.below(6));
    this.lit(L.linkClose);
    this.eol();
  }

  private heading(): void {
    const rng = this.rng;
    const level = rng.below(10) < 8 ? 0 : rng.below(2) + 1;
    this.lit(L.headingOpen[level]!);
    if (rng.below(3) === 0) this.words(1 + rng.below(3));
    else this.lit(pickId(L.headings, rng.next()));
    this.lit(L.headingClose[level]!);
    this.eol();
  }

  private list(): void {
    const rng = this.rng;
    const items = 2 + rng.below(12);
    const marker = L.listItem[rng.below(4)]!;
    for (let i = 0; i < items; i++) {
      this.lit(marker);
      if (rng.below(2) === 0) {
        this.link(1 + rng.below(3));
        if (rng.below(2) === 0) {
          this.byte(SPACE);
          this.lit(L.dash);
          this.byte(SPACE);
          this.words(1 + rng.below(8));
        }
      } else {
        this.sentence(true);
      }
      this.eol();
    }
  }

  private table(): void {
    const rng = this.rng;
    const columns = 2 + rng.below(5);
    const rows = 2 + rng.below(12);
    this.lit(L.tableOpen);
    this.eol();
    this.lit(L.tableHeader);
    for (let c = 0; c < columns; c++) {
      if (c > 0) this.lit(L.tableHeaderSep);
      this.words(1 + rng.below(2));
    }
    this.eol();
    for (let r = 0; r < rows; r++) {
      this.lit(L.tableRow);
      this.eol();
      this.lit(L.tableCell);
      for (let c = 0; c < columns; c++) {
        if (c > 0) {
          // Some editors align cells with tabs.
          if (rng.below(8) === 0) this.byte(TAB);
          this.lit(L.tableCellSep);
        }
        const cell = rng.below(9);
        if (cell < 3) this.number(rng.next());
        else if (cell < 5) this.link(1);
        else this.words(1 + rng.below(3));
      }
      this.eol();
    }
    this.lit(L.tableClose);
    this.eol();
  }

  private tail(): void {
    const rng = this.rng;
    this.lit(L.headingOpen[0]!);
    this.lit(L.tailSections[0]!);
    this.lit(L.headingClose[0]!);
    this.eol();
    this.lit(L.jegyzetek);
    this.eol();
    if (rng.below(2) === 0) {
      this.blankLine();
      this.lit(L.headingOpen[0]!);
      this.lit(pickId(L.tailSections, rng.next()));
      this.lit(L.headingClose[0]!);
      this.eol();
      const refs = 1 + rng.below(6);
      for (let i = 0; i < refs; i++) {
        this.lit(L.listItem[0]!);
        this.citation();
        this.eol();
      }
    }
    this.eol();
    if (rng.below(3) === 0) {
      this.lit(L.portal);
      this.words(1);
      this.lit(L.templateClose);
      this.eol();
    }
    if (rng.below(4) === 0) {
      this.lit(L.defaultSort);
      this.words(2);
      this.lit(L.templateClose);
      this.eol();
    }
    const categories = 1 + rng.below(6);
    for (let i = 0; i < categories; i++) {
      this.lit(L.category);
      this.words(1 + rng.below(4));
      this.lit(L.linkClose);
      if (i + 1 < categories) this.eol();
    }
  }

  /** A paragraph of `sentences` sentences on one line. */
  private paragraph(sentences: number, capitalizeFirst: boolean): void {
    for (let i = 0; i < sentences; i++) {
      if (i > 0) this.gap(this.rng.next());
      this.sentence(capitalizeFirst || i > 0);
    }
  }

  /**
   * One sentence of prose. One 32-bit draw per word decides its decoration (bits 0-9), the
   * punctuation glued after it (bits 10-15), part of its rank (bits 16-22) and the gap before it
   * (bits 27-31).
   */
  private sentence(capitalize: boolean): void {
    const rng = this.rng;
    const vocab = this.vocab;
    const n = 4 + rng.below(23);
    let open = 0; // 1: inside (…), 2: inside „…”
    let openLeft = 0;
    for (let i = 0; i < n; i++) {
      const d = rng.next();
      const kind = d & 1023;
      if (i > 0) {
        if (d >>> 27 !== 0) this.out[this.pos++] = SPACE;
        else this.oddGap();
      }
      if (kind >= 150) {
        const wordStart = this.pos;
        const rank = vocab.sampleRankWith((d >>> 16) & 127, rng);
        this.pos += vocab.writeWord(this.view, wordStart, rank);
        if (i === 0 && capitalize) capitalizeAt(this.view, wordStart);
      } else if (kind < 40) {
        this.number(rng.next());
      } else if (kind < 95) {
        this.link(1 + (kind & 1) + ((kind >>> 1) & 1));
      } else if (kind < 115) {
        const mark = kind < 100 ? L.bold : L.italic;
        this.lit(mark);
        this.words(1 + (kind & 1));
        this.lit(mark);
      } else if (kind < 131 && open === 0 && i + 2 < n) {
        open = kind < 125 ? 1 : 2;
        openLeft = 1 + (kind & 3);
        if (open === 1) this.byte(0x28);
        else this.lit(L.quoteOpen);
        this.words(1);
      } else if (kind < 140) {
        this.lit(L.dash);
      } else if (kind < 145) {
        // Typographic no-break spaces join two words into one token ("II. András", "10 000").
        this.words(1);
        this.lit(L.nbsp);
        this.words(1);
      } else if (kind < 147) {
        this.lit(L.nbspEntity);
        this.words(1);
      } else {
        this.lit(L.xmlQuote);
        this.words(1);
        this.lit(L.xmlQuote);
      }
      if (open !== 0 && --openLeft < 0) {
        if (open === 1) this.byte(0x29);
        else this.lit(L.quoteClose);
        open = 0;
      }
      const punct = (d >>> 10) & 63;
      if (i + 1 < n && punct < 7) this.byte(punct < 5 ? 0x2c : punct === 5 ? 0x3b : 0x3a);
    }
    if (open === 1) this.byte(0x29);
    else if (open === 2) this.lit(L.quoteClose);
    const end = rng.below(100);
    this.byte(end < 94 ? 0x2e : end < 96 ? 0x21 : end < 98 ? 0x3f : 0x3a);
    if (end >= 92) this.reference(rng.next());
  }

  /** The whitespace between words: almost always one space (1/32 of the time, oddGap instead). */
  private gap(draw: number): void {
    if (draw >>> 27 !== 0) this.out[this.pos++] = SPACE;
    else this.oddGap();
  }

  /** Runs of spaces and tabs, line breaks, blank lines, and with rare separators on, \v and \f. */
  private oddGap(): void {
    const r = this.rng.below(1024);
    if (r < 500) this.out[this.pos++] = SPACE;
    else if (r < 700) {
      this.out[this.pos++] = SPACE;
      this.out[this.pos++] = SPACE;
    } else if (r < 800) this.eol();
    else if (r < 850) {
      this.out[this.pos++] = SPACE;
      this.eol();
    } else if (r < 900) this.out[this.pos++] = TAB;
    else if (r < 950) {
      this.out[this.pos++] = SPACE;
      this.out[this.pos++] = TAB;
    } else if (r < 990) {
      for (let k = 3 + (r & 7); k > 0; k--) this.out[this.pos++] = SPACE;
    } else if (r < 1020 || !this.rareSeparators) {
      this.eol();
      this.eol();
    } else {
      // Vertical tab and form feed: split words for std::isspace, never emitted by default.
      this.out[this.pos++] = r < 1022 ? VT : FF;
    }
  }

  private blankLine(): void {
    this.eol();
    this.eol();
  }

  private eol(): void {
    if (this.crlf) this.out[this.pos++] = CR;
    this.out[this.pos++] = LF;
  }

  /** `count` words separated by single spaces (for titles, links, template values). */
  private words(count: number): void {
    const rng = this.rng;
    const vocab = this.vocab;
    for (let i = 0; i < count; i++) {
      if (i > 0) this.out[this.pos++] = SPACE;
      this.pos += vocab.writeWord(this.view, this.pos, vocab.sampleRank(rng));
    }
  }

  private title(): void {
    const rng = this.rng;
    const n = 1 + rng.below(3);
    for (let i = 0; i < n; i++) {
      if (i > 0) this.byte(SPACE);
      const start = this.pos;
      this.pos += this.vocab.writeWord(this.view, this.pos, this.vocab.sampleRank(rng));
      if (i === 0) capitalizeAt(this.view, start);
    }
  }

  private link(count: number): void {
    const rng = this.rng;
    this.lit(L.linkOpen);
    this.words(count);
    const r = rng.below(10);
    if (r < 3) {
      this.byte(0x7c);
      this.words(1 + rng.below(2));
    } else if (r < 4) {
      this.byte(0x23);
      this.words(1);
    }
    this.lit(L.linkClose);
    if (r === 9) this.ascii('ban'); // suffixes glued after links: [[Budapest]]en
  }

  /** Numbers as they appear in articles: years with suffixes, dates, thousands with no-break spaces. */
  private number(draw: number): void {
    const rng = this.rng;
    const kind = draw & 15;
    if (kind < 6) {
      this.int(1000 + rng.below(1024));
      if (draw & 16) this.lit(pickId(L.numberSuffixes, draw >>> 8));
    } else if (kind < 8) {
      this.int(1800 + rng.below(223));
      this.byte(0x2e);
      this.byte(SPACE);
      this.lit(pickId(L.months, draw >>> 8));
      this.byte(SPACE);
      this.int(1 + rng.below(31));
      this.byte(0x2e);
    } else if (kind < 11) {
      this.int(rng.below(100));
      if (draw & 16) this.lit(pickId(L.numberSuffixes, draw >>> 8));
    } else if (kind < 13) {
      // 12 345 678 with no-break spaces between digit groups.
      this.int(1 + rng.below(999));
      const groups = 1 + ((draw >>> 4) & 1);
      for (let g = 0; g < groups; g++) {
        this.lit(L.nbsp);
        this.int3(rng.below(1000));
      }
    } else if (kind < 14) {
      this.int(rng.below(1000));
      this.byte(0x2c);
      this.int(rng.below(100));
      if (draw & 16) this.lit(L.percent);
    } else {
      this.int(rng.below(1 << 20));
    }
  }

  private reference(draw: number): void {
    const rng = this.rng;
    if ((draw & 3) === 0) {
      this.lit(L.refNamedOpen);
      this.words(1);
      this.int(rng.below(100));
      this.lit(L.refNamedClose);
      return;
    }
    this.lit(L.refOpen);
    this.citation();
    this.lit(L.refClose);
  }

  private citation(): void {
    const rng = this.rng;
    this.lit(L.citeWeb);
    this.url(8 + rng.below(80));
    this.lit(L.citeTitle);
    this.words(1 + rng.below(6));
    if (rng.below(2) === 0) {
      this.lit(L.citeAccess);
      this.int(2005 + rng.below(18));
      this.byte(0x2d);
      this.int2(1 + rng.below(12));
      this.byte(0x2d);
      this.int2(1 + rng.below(28));
    }
    this.lit(L.templateClose);
  }

  private url(pathLength: number): void {
    this.lit(pickId(L.hosts, this.rng.next()));
    this.randomChars(URL_CHARS, pathLength);
  }

  /** A rare very long token: a huge URL or an inline base64 image of a few KiB. */
  private longToken(): void {
    const rng = this.rng;
    this.blankLine();
    if (rng.below(2) === 0) {
      this.lit(L.refOpen);
      this.url(500 + rng.below(4000));
      this.lit(L.refClose);
    } else {
      this.lit(L.base64Head);
      this.randomChars(BASE64_CHARS, 1024 + rng.below(7 * 1024));
    }
  }

  /** `length` characters from a 64-character alphabet, five per 32-bit draw. */
  private randomChars(alphabet: Uint8Array, length: number): void {
    const rng = this.rng;
    const out = this.out;
    let pos = this.pos;
    for (let i = 0; i < length;) {
      let r = rng.next();
      for (let k = 0; k < 5 && i < length; k++, i++) {
        out[pos++] = alphabet[r & 63]!;
        r >>>= 6;
      }
    }
    this.pos = pos;
  }

  private timestamp(): void {
    const rng = this.rng;
    this.int(2003 + rng.below(20));
    this.byte(0x2d);
    this.int2(1 + rng.below(12));
    this.byte(0x2d);
    this.int2(1 + rng.below(28));
    this.byte(0x54);
    this.int2(rng.below(24));
    this.byte(0x3a);
    this.int2(rng.below(60));
    this.byte(0x3a);
    this.int2(rng.below(60));
    this.byte(0x5a);
  }

  private username(): void {
    const rng = this.rng;
    const start = this.pos;
    this.pos += this.vocab.writeWord(this.view, this.pos, this.vocab.sampleRank(rng));
    capitalizeAt(this.view, start);
    if (rng.below(3) === 0) this.int(rng.below(100));
  }

  private ip(): void {
    const rng = this.rng;
    for (let i = 0; i < 4; i++) {
      if (i > 0) this.byte(0x2e);
      this.int(rng.below(256));
    }
  }

  private lit(id: number): void {
    const start = litStart[id]!;
    const length = litEnd[id]! - start;
    copyBytes(this.view, this.pos, litView, start, length);
    this.pos += length;
  }

  private ascii(text: string): void {
    for (let i = 0; i < text.length; i++) this.out[this.pos++] = text.charCodeAt(i);
  }

  private copyWithin(start: number, end: number): void {
    this.out.copyWithin(this.pos, start, end);
    this.pos += end - start;
  }

  private byte(value: number): void {
    this.out[this.pos++] = value;
  }

  /** Decimal digits of a non-negative safe integer (ids keep growing in very large inputs). */
  private int(value: number): void {
    const out = this.out;
    let digits = 1;
    for (let v = value; v >= 10; v = Math.floor(v / 10)) digits++;
    let pos = this.pos + digits;
    this.pos = pos;
    let v = value;
    do {
      out[--pos] = 0x30 + (v % 10);
      v = Math.floor(v / 10);
    } while (v > 0);
  }

  private int2(value: number): void {
    this.out[this.pos++] = 0x30 + ((value / 10) | 0);
    this.out[this.pos++] = 0x30 + (value % 10);
  }

  private int3(value: number): void {
    this.out[this.pos++] = 0x30 + ((value / 100) | 0);
    this.int2(value % 100);
  }
}

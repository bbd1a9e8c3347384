// The deterministic run's functions, baseline and solution lined up by name: what the solution no
// longer runs, what it runs less of, and what is new.
import { MAX_FUNCTION_NAME, type FunctionCost, type Hotspots } from '../../../contracts';

export interface HotspotRow {
  name: string;
  baseline: FunctionCost | null;
  solution: FunctionCost | null;
  /** Solution instructions / baseline instructions, when both sides ran the function. */
  ratio: number | null;
}

/**
 * Every function among either side's top ones, ordered by the larger of its two instruction
 * counts. A side without the function in its top list shows nothing rather than zero (it may have
 * run it a little).
 */
export function compareHotspots(baseline: Hotspots, solution: Hotspots, top = 15): HotspotRow[] {
  const rows = new Map<string, HotspotRow>();
  const row = (name: string) => {
    let r = rows.get(name);
    if (!r) {
      r = { name, baseline: null, solution: null, ratio: null };
      rows.set(name, r);
    }
    return r;
  };
  for (const f of baseline.functions) row(f.name).baseline = f;
  for (const f of solution.functions) row(f.name).solution = f;
  for (const r of rows.values())
    if (r.baseline && r.solution && r.baseline.instructions > 0)
      r.ratio = r.solution.instructions / r.baseline.instructions;
  const weight = (r: HotspotRow) =>
    Math.max(r.baseline?.instructions ?? 0, r.solution?.instructions ?? 0);
  return [...rows.values()]
    .sort((a, b) => weight(b) - weight(a) || (a.name < b.name ? -1 : 1))
    .slice(0, top);
}

/** A function's share of its side's instructions (0…1). */
export function instructionShare(f: FunctionCost, side: Hotspots): number {
  return side.totalInstructions > 0 ? f.instructions / side.totalInstructions : 0;
}

/**
 * A C++ name short enough to read in a table: template arguments of a long name folded to `<…>`
 * (`std::_Hashtable<…>::_M_rehash_aux`), then, if it is still long, its parameters to `(…)`
 * (`__cxxabiv1::__vmi_class_type_info::__do_dyncast(…) const`). The full name stays available
 * beside it.
 */
export function shortFunctionName(name: string, max = 60): string {
  if (name.length <= max) return name;
  // The judge cuts names at MAX_FUNCTION_NAME: there a bracket left open is the cut, and "…" says
  // the name goes on. Elsewhere "operator<" and "operator<<" open no template: an unbalanced fold
  // is worse than a long name.
  const cut = name.length >= MAX_FUNCTION_NAME;
  const templates = fold(name, '<', '>');
  if (templates === null && !cut) return name;
  const short = templates ?? foldOpen(name, '<', '>');
  if (short.length <= max) return cut ? `${short}…` : short;
  const parameters = fold(short, '(', ')') ?? (cut ? foldOpen(short, '(', ')') : short);
  return cut ? `${parameters}…` : parameters;
}

/** `text` with what each outermost non-empty open…close pair holds folded to "…"; null if unbalanced. */
function fold(text: string, open: string, close: string): string | null {
  let out = '';
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === open) {
      // "operator()" keeps its empty pair.
      if (depth === 0) out += text[i + 1] === close ? open : `${open}…`;
      depth++;
    } else if (ch === close && depth > 0) {
      depth--;
      if (depth === 0) out += close;
    } else if (depth === 0) out += ch;
  }
  return depth === 0 ? out : null;
}

/** As fold, for a name cut inside a pair: the pair left open is closed after its "…". */
function foldOpen(text: string, open: string, close: string): string {
  let out = '';
  let depth = 0;
  for (const ch of text) {
    if (ch === open) {
      if (depth === 0) out += `${open}…${close}`;
      depth++;
    } else if (ch === close && depth > 0) depth--;
    else if (depth === 0) out += ch;
  }
  return out;
}

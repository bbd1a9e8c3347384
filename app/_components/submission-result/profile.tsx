// The profile stage: Top-Down level 1, memory over time, the sampled profile's flame graphs and
// cachegrind's instruction counts, in total and per function; a part the host could not produce is
// replaced by the judge's note saying why.
import type { CachegrindCounts, ProfileStage } from '../../../contracts';
import { formatBytes, formatCount, formatSpeedup } from '../../../lib/server/web/format';
import {
  memoryChartData,
  topdownChartData,
  uniqueNotes,
} from '../../../lib/server/web/submission-result';
import { MemoryChart } from '../charts/memory-chart';
import { TopdownChart } from '../charts/topdown-chart';
import { BaselineSolutionTable, RatioCell } from './baseline-solution-table';
import { FunctionHotspots, SampledProfiles } from './hotspots';

const CACHEGRIND_ROWS: { key: keyof CachegrindCounts; label: string }[] = [
  { key: 'instructions', label: 'instructions' },
  { key: 'dataReads', label: 'data reads' },
  { key: 'dataWrites', label: 'data writes' },
  { key: 'l1InstructionMisses', label: 'L1 instruction misses' },
  { key: 'l1DataMisses', label: 'L1 data misses' },
  { key: 'llMisses', label: 'last-level misses' },
  { key: 'branches', label: 'branches' },
  { key: 'branchMispredictions', label: 'branch mispredictions' },
  { key: 'estimatedCycles', label: 'estimated cycles' },
];

const TOPDOWN_NOTE = /top-?down/i;
const MEMORY_NOTE = /memory/i;
const CACHEGRIND_NOTE = /cachegrind|valgrind|instruction/i;
const SAMPLED_NOTE = /sampled profile|perf record/i;

/** Where each missing part's note is said: beside the part, or in the list at the end. */
interface ProfileNotes {
  topdown?: string;
  memory?: string;
  sampled?: string;
  cachegrind?: string;
  rest: string[];
}

function placeNotes(profile: ProfileStage): ProfileNotes {
  // Each note is said once: beside the first missing part it explains (one note about Linux-only
  // tools may explain all of them; the others point to it), or else in the list at the end.
  const inline: string[] = [];
  const noteFor = (missing: boolean, pattern: RegExp): string | undefined => {
    if (!missing) return undefined;
    const note = profile.notes.find((n) => pattern.test(n));
    if (note === undefined) return undefined;
    // Already said above (one note about Linux-only tools explains every part): point to it.
    if (inline.includes(note)) return 'Unavailable: see the note above.';
    inline.push(note);
    return note;
  };
  const topdown = noteFor(!profile.topdown, TOPDOWN_NOTE);
  const memory = noteFor(!profile.memory, MEMORY_NOTE);
  // Said even when another part already showed the same note: what is unavailable on this target
  // must be readable where the flame graph would be.
  const sampled = profile.sampled ? undefined : profile.notes.find((n) => SAMPLED_NOTE.test(n));
  if (sampled !== undefined && !inline.includes(sampled)) inline.push(sampled);
  const cachegrind = noteFor(!profile.deterministic, CACHEGRIND_NOTE);
  return { topdown, memory, sampled, cachegrind, rest: uniqueNotes(profile.notes, inline) };
}

export function Profile({
  target,
  profile,
  downloadHref,
}: {
  target: string;
  profile: ProfileStage;
  /** The speedscope download of this target's sampled profiles. */
  downloadHref: string;
}) {
  const notes = placeNotes(profile);
  return (
    <div>
      <TopdownSection target={target} profile={profile} note={notes.topdown} />
      <MemorySection target={target} profile={profile} note={notes.memory} />
      <h3>Where the time goes</h3>
      {profile.sampled ? (
        <SampledProfiles sampled={profile.sampled} target={target} downloadHref={downloadHref} />
      ) : (
        <p className="small" data-testid="sampled-unavailable">
          <span className="badge warn">unavailable</span>{' '}
          {notes.sampled ?? 'No sampled profile was taken for this judging.'}
        </p>
      )}
      <CachegrindSection profile={profile} note={notes.cachegrind} />
      {notes.rest.length > 0 && (
        <details>
          <summary className="small">Profile notes ({notes.rest.length})</summary>
          <ul className="small">
            {notes.rest.map((n, i) => (
              <li key={i}>{n}</li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}

interface SectionProps {
  target: string;
  profile: ProfileStage;
  note: string | undefined;
}

function TopdownSection({ target, profile, note }: SectionProps) {
  return (
    <>
      <h3>Top-Down</h3>
      {profile.topdown ? (
        <>
          <TopdownChart
            data={topdownChartData(profile.topdown)}
            label={`Top-Down level 1 on ${target}`}
          />
          <p className="small muted">
            Share of pipeline slots (perf metric group {profile.topdown.solution.source}).
          </p>
        </>
      ) : (
        <p className="small">
          <span className="badge warn">unsupported</span>{' '}
          {note ?? 'No Top-Down figures for this host.'}
        </p>
      )}
    </>
  );
}

function MemorySection({ target, profile, note }: SectionProps) {
  return (
    <>
      <h3>Memory over time</h3>
      {profile.memory ? (
        <>
          <MemoryChart
            baseline={memoryChartData(profile.memory.baseline)}
            solution={memoryChartData(profile.memory.solution)}
            label={`Resident memory over time on ${target}`}
          />
          <p className="small">
            Peak RSS: baseline {formatBytes(profile.memory.baseline.peaks.rssBytes)}, solution{' '}
            {formatBytes(profile.memory.solution.peaks.rssBytes)}; huge pages in use at peak:{' '}
            {formatBytes(profile.memory.solution.peaks.thpBytes)}.
          </p>
        </>
      ) : (
        <p className="small muted" data-testid="memory-unavailable">
          {note ?? 'No memory profile was taken.'}
        </p>
      )}
    </>
  );
}

function CachegrindSection({ profile, note }: Omit<SectionProps, 'target'>) {
  const d = profile.deterministic;
  return (
    <>
      <h3>Instruction speedup</h3>
      {d ? (
        <>
          <p>
            <strong>{formatSpeedup(d.instructionSpeedup)}</strong>{' '}
            <span className="small muted">
              fewer instructions (cachegrind, noise-free) on a {formatBytes(d.inputBytes)} input,
              built with <span className="mono">{d.flags.join(' ')}</span>
            </span>
          </p>
          <CachegrindTable d={d} />
          <h3>Instructions per function</h3>
          <FunctionHotspots deterministic={d} />
        </>
      ) : (
        <p className="small muted" data-testid="cachegrind-unavailable">
          {note ?? 'No cachegrind run for this judging.'}
        </p>
      )}
    </>
  );
}

function CachegrindTable({ d }: { d: NonNullable<ProfileStage['deterministic']> }) {
  return (
    <BaselineSolutionTable measure="cachegrind">
      {CACHEGRIND_ROWS.map((r) => (
        <tr key={r.key}>
          <td>{r.label}</td>
          <td className="num">{formatCount(d.baseline[r.key])}</td>
          <td className="num">{formatCount(d.solution[r.key])}</td>
          <RatioCell ratio={d.baseline[r.key] > 0 ? d.solution[r.key] / d.baseline[r.key] : null} />
        </tr>
      ))}
    </BaselineSolutionTable>
  );
}

// A flame graph drawn from folded stacks as positioned boxes: widths in percent, so it fits any
// screen (375 px included) and labels keep their size, cut with an ellipsis; each box's full name
// and samples are in its title.
import type { SampledProfile } from '../../../contracts';
import { shortFunctionName } from '../../../lib/core/profile/compare-hotspots';
import { flameBoxes } from '../../../lib/core/profile/folded-stacks';

const ROW_PX = 18;
/** Boxes under 0.4% of the samples are left out: too narrow to read or tap. */
const MIN_WIDTH = 0.004;

/** Warm colours by name (the same function gets the same colour on both sides); kernel in grey-blue. */
function colour(name: string): string {
  if (name.endsWith(' [kernel]')) return 'hsl(210 30% 82%)';
  if (name.startsWith('[unknown')) return 'hsl(0 0% 85%)';
  let hash = 0;
  for (let i = 0; i < name.length; i++) hash = (hash * 31 + name.charCodeAt(i)) | 0;
  const hue = 10 + (Math.abs(hash) % 40);
  const light = 62 + (Math.abs(hash >> 8) % 14);
  return `hsl(${hue} 85% ${light}%)`;
}

export function FlameGraph({ profile, label }: { profile: SampledProfile; label: string }) {
  const boxes = flameBoxes(profile, MIN_WIDTH);
  const depth = boxes.reduce((max, b) => Math.max(max, b.depth + 1), 0);
  const total = profile.stacks.reduce((sum, s) => sum + s.samples, 0);
  return (
    <div
      className="flame"
      role="img"
      aria-label={label}
      data-testid="flame-graph"
      style={{ height: depth * ROW_PX + 2 }}
    >
      {boxes.map((b, i) => (
        <div
          key={i}
          className="flame-box"
          title={`${b.name}\n${b.samples} samples (${((100 * b.samples) / total).toFixed(1)}%)`}
          style={{
            left: `${(100 * b.start).toFixed(3)}%`,
            width: `${(100 * b.width).toFixed(3)}%`,
            top: b.depth * ROW_PX,
            background: colour(b.name),
          }}
        >
          {shortFunctionName(b.name, 40)}
        </div>
      ))}
    </div>
  );
}

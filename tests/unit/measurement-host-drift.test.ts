// The submission page's speedup section says when its interval includes the host's drift, with
// the pairs' own interval beside it (rendered to HTML), and says nothing of drift when none was
// stated.
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Measurement } from '../../app/_components/submission-result/measurement';
import { makeResult } from '../../dev/db-fixtures';
import { widenForHostDrift } from '../../lib/core/stats';

function measureWith(drift: number | null) {
  const measure = makeResult({ slug: 'wordcount', version: 1, target: 'linux-intel', speedup: 2 })
    .stages.measure!;
  const e = measure.estimate!;
  if (drift !== null) {
    const stat = { ciLow: e.ciLow, ciHigh: e.ciHigh, halfWidthRel: e.halfWidthRel };
    Object.assign(e, widenForHostDrift({ ...e, confidence: 0.95 }, drift), {
      hostDrift: {
        sdRel: drift,
        statCiLow: stat.ciLow,
        statCiHigh: stat.ciHigh,
        statHalfWidthRel: stat.halfWidthRel,
      },
    });
  }
  return measure;
}

describe('the speedup section and the host drift', () => {
  it('names the drift and the pairs’ own interval when the estimate includes one', () => {
    const measure = measureWith(0.014);
    const html = renderToStaticMarkup(
      createElement(Measurement, { target: 'linux-intel', measure }),
    );
    const e = measure.estimate!;
    expect(html).toContain(`${e.ciLow.toFixed(2)}–${e.ciHigh.toFixed(2)}`);
    expect(html).toContain('drift between judgings (runPolicy.hostDrift: 1.4% standard deviation)');
    expect(html).toContain(
      `from the pairs alone it is ${e.hostDrift!.statCiLow.toFixed(3)}–${e.hostDrift!.statCiHigh.toFixed(3)}`,
    );
  });

  it('says nothing of drift when the run policy stated none', () => {
    const html = renderToStaticMarkup(
      createElement(Measurement, { target: 'linux-intel', measure: measureWith(null) }),
    );
    expect(html).toContain('interval');
    expect(html).not.toContain('drift between judgings');
  });
});

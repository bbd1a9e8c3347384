// The judge: intake → build → test → measure → report for one patch on one target. The queue worker
// and `perfjudge judge` both call this; everything it decides ends up in one typed JudgingResult.
// judge() is only the order of the steps: what they share is a JudgingContext (judging-context.ts),
// the steps themselves are in judge-stages.ts.
import type { JudgingResult } from '../../contracts';
import {
  buildStage,
  closingWarnings,
  finishReport,
  intakeStage,
  measureStage,
  preflight,
  profileStage,
  recordFailure,
  testStage,
} from './judge-stages';
import { createJudgingContext, type JudgeOptions, type JudgingContext } from './judging-context';

export type { JudgeOptions } from './judging-context';

export async function judge(options: JudgeOptions): Promise<JudgingResult> {
  const ctx = await createJudgingContext(options);
  try {
    await runStages(ctx);
  } catch (error) {
    recordFailure(ctx, error);
  } finally {
    await finishReport(ctx);
  }
  return ctx.result;
}

/**
 * The stages in order; the first that ends the judging (a rejected patch, no binary, a failed
 * required test) stops it. Whatever runs compilers or programs takes a turn on the host, so on a
 * runner judging several submissions nothing of one runs beside a timed run of another. The build
 * and the tests are untimed: those of judgings queued together run side by side (one per CPU)
 * between two rounds, never during one.
 */
async function runStages(ctx: JudgingContext): Promise<void> {
  const { turns } = ctx.sharing;
  const platform = await preflight(ctx);
  if (!(await intakeStage(ctx))) return;
  const built = await turns.untimed(async () => {
    const binaries = await buildStage(ctx, platform);
    return binaries && (await testStage(ctx, platform, binaries)) ? binaries : null;
  });
  if (!built) return;
  const { measured, procStatBefore } = await measureStage(ctx, platform, built);
  await turns.turn(() => profileStage(ctx, platform, built, measured));
  await closingWarnings(ctx, procStatBefore);
}

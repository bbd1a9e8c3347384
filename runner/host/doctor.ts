// The host report (`perfjudge doctor`, and a runner at start-up): the load on the judge's CPU over
// a quiet second, the judge's requirements, the baseline's run-to-run noise, and every setting that
// hurts timing, each with a verdict and its fix. Nothing here touches the database or the web app.
import {
  hostReportSchema,
  worstVerdict,
  type HostCheck,
  type HostNoise,
  type HostReport,
} from '../../contracts';
import type { Challenge } from '../../lib/core/challenge/load-manifest';
import type { Sandbox } from '../sandbox/sandbox';
import { judgeCpu } from './fingerprint';
import { HOST_ROOT } from './host-files';
import { probeNoise } from './noise-probe';
import { requirementChecks } from './requirements';
import { measureLoad, readHostSnapshot, timingChecks } from './timing-checks';

export interface HostReportOptions {
  challenge: Challenge;
  sandbox: Sandbox;
  dataDir: string;
  /** The judge's CPU; default as the judge picks it (the manifest's, else the last). */
  cpu?: number;
  /** Also check the tools the judge needs (doctor: yes; a runner that started has them). */
  requirements?: boolean;
  /** Measure the baseline's noise (a few seconds); false skips it. */
  noise?: boolean;
  noiseRuns?: number;
  noiseInputBytes?: number;
  /** How long the pinned CPU's load is sampled with nothing of ours running. */
  loadWindowMs?: number;
  /** Where /proc and /sys are read (tests: recorded files; the noise probe always reads the real ones). */
  root?: string;
  workRoot?: string;
  signal?: AbortSignal;
  log?: (line: string) => void;
}

export async function hostReport(options: HostReportOptions): Promise<HostReport> {
  const { manifest } = options.challenge;
  const root = options.root ?? HOST_ROOT;
  const cpu = judgeCpu(manifest.runPolicy.cpu, options.cpu);

  // 1. Settings, then the CPU's load over a quiet window, before anything of ours runs.
  const snapshot = await readHostSnapshot(cpu, root);
  const load = await measureLoad(cpu, snapshot.siblings ?? [], options.loadWindowMs ?? 1_000, root);

  // 2. The tools (these spawn compilers, so after the quiet window).
  let requirements: HostCheck[] = [];
  let sandboxWorks: boolean | null = null;
  if (options.requirements !== false) {
    const found = await requirementChecks({ manifest, sandbox: options.sandbox });
    requirements = found.checks;
    sandboxWorks = found.sandboxWorks;
  }

  // 3. The noise, the judge's way (sandboxed, pinned): only where the sandbox works.
  let noise: HostNoise | null = null;
  let whyNot: string | null = null;
  if (options.noise === false) whyNot = 'not measured (--no-noise)';
  else {
    if (sandboxWorks === null)
      sandboxWorks = await options.sandbox.check().then(
        () => true,
        () => false,
      );
    if (!sandboxWorks)
      whyNot = `not measured: the ${options.sandbox.kind} sandbox does not work here`;
    else
      try {
        noise = await probeNoise({
          challenge: options.challenge,
          sandbox: options.sandbox,
          dataDir: options.dataDir,
          cpu,
          runs: options.noiseRuns,
          inputBytes: options.noiseInputBytes,
          // Truthy, not just defined: an empty path is the default scratch parent, not ''.
          ...(options.workRoot ? { workRoot: options.workRoot } : {}),
          signal: options.signal,
          log: options.log,
        });
      } catch (error) {
        whyNot = `not measured: ${(error as Error).message}`;
      }
  }

  const checks = [
    ...timingChecks(snapshot, load, { noise, whyNot }, manifest.host?.memory),
    ...requirements,
  ];
  return hostReportSchema.parse({
    measuredAt: new Date().toISOString(),
    cpu,
    verdict: worstVerdict(checks.map((c) => c.verdict)),
    checks,
    noise,
  });
}

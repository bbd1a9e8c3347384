// Supervision in `npm start`: a child that dies (a runner killed with -9, the scorer crashing, the
// private Redis shut down) is started again with backoff, its death and return logged with the
// reason, while the others keep serving. The platform stops only when asked. What it knows is
// published for /api/health and the organizer console (lib/server/queue/service-status.ts).
import type { ServiceStatus } from '../../contracts';
import type { Child } from './process';

/** Delays before restart 1, 2, 3…: the last one repeats. Every dead child is back within 30 s. */
export const RESTART_DELAYS_MS = [1_000, 2_000, 4_000, 8_000, 15_000];
/** A child that ran this long before dying was healthy: its next restart starts the delays over. */
const STABLE_AFTER_MS = 60_000;

/** The delay before the next start after `failures` deaths or failed starts in a row (1, 2, …). */
export function restartDelayMs(failures: number): number {
  const index = Math.min(Math.max(failures, 1), RESTART_DELAYS_MS.length) - 1;
  return RESTART_DELAYS_MS[index]!;
}

export interface Supervised {
  name: string;
  kind: ServiceStatus['kind'];
  /**
   * Starts the process and resolves once it is up (rejects when it does not come up). `launched`
   * is told the process as soon as it exists, so a stop during a slow start can reach it.
   */
  start(launched: (child: Child) => void): Promise<Child>;
  /** How to stop it (default: SIGTERM, SIGKILL after the grace period). */
  stop?(child: Child, graceMs: number): Promise<unknown>;
}

interface Unit {
  spec: Supervised;
  child: Child | null;
  state: ServiceStatus['state'];
  restarts: number;
  /** Deaths and failed starts since it last ran for STABLE_AFTER_MS. */
  failures: number;
  lastExit: ServiceStatus['lastExit'];
  nextStartAt: Date | null;
  since: Date;
  upAt: number;
  timer: NodeJS.Timeout | null;
  starting: Promise<unknown> | null;
}

export interface SupervisorOptions {
  log: (line: string) => void;
  /** Called after every change of state (to publish it at once). */
  onChange?: () => void;
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

export class Supervisor {
  private readonly units = new Map<string, Unit>();
  private stopping = false;

  constructor(private readonly options: SupervisorOptions) {}

  /** Supervises a child the orchestrator started and saw come up. */
  watch(spec: Supervised, child: Child): void {
    const unit: Unit = {
      spec,
      child,
      state: 'running',
      restarts: 0,
      failures: 0,
      lastExit: null,
      nextStartAt: null,
      since: new Date(),
      upAt: Date.now(),
      timer: null,
      starting: null,
    };
    this.units.set(spec.name, unit);
    this.follow(unit, child);
    this.options.onChange?.();
  }

  statuses(): ServiceStatus[] {
    return [...this.units.values()].map((u) => ({
      name: u.spec.name,
      kind: u.spec.kind,
      state: u.state,
      restarts: u.restarts,
      lastExit: u.lastExit,
      nextStartAt: u.nextStartAt?.toISOString() ?? null,
      since: u.since.toISOString(),
    }));
  }

  /** The current process of a unit (tests and the drill use it to find pids). */
  child(name: string): Child | null {
    return this.units.get(name)?.child ?? null;
  }

  /** No more restarts from now on (the platform is stopping). */
  stopRestarting(): void {
    this.stopping = true;
    for (const unit of this.units.values()) {
      if (unit.timer) clearTimeout(unit.timer);
      unit.timer = null;
    }
  }

  /** Stops these units (all at once), waiting for a start in progress first. */
  async stop(names: (name: string, kind: ServiceStatus['kind']) => boolean, graceMs: number) {
    this.stopRestarting();
    const chosen = [...this.units.values()].filter((u) => names(u.spec.name, u.spec.kind));
    await Promise.all(
      chosen.map(async (unit) => {
        // A start in progress: stop what it launched rather than wait for it to come up.
        if (unit.child?.running()) await this.stopChild(unit, unit.child, graceMs);
        await unit.starting?.catch(() => undefined);
        if (unit.child?.running()) await this.stopChild(unit, unit.child, graceMs);
        unit.state = 'down';
      }),
    );
    this.options.onChange?.();
  }

  private stopChild(unit: Unit, child: Child, graceMs: number): Promise<unknown> {
    return unit.spec.stop ? unit.spec.stop(child, graceMs) : child.stop(graceMs);
  }

  private follow(unit: Unit, child: Child): void {
    void child.exited.then(() => {
      if (this.stopping || unit.child !== child) return;
      const ranMs = Date.now() - unit.upAt;
      if (ranMs >= STABLE_AFTER_MS) unit.failures = 0;
      unit.failures += 1;
      const reason = child.exitReason() ?? 'exited';
      unit.lastExit = { at: new Date().toISOString(), reason };
      this.options.log(
        `${unit.spec.name} died (${reason}) after ${seconds(ranMs)}: the rest keeps running`,
      );
      this.schedule(unit);
    });
  }

  private schedule(unit: Unit): void {
    if (this.stopping) return;
    const delay = restartDelayMs(unit.failures);
    unit.state = 'restarting';
    unit.since = new Date();
    unit.nextStartAt = new Date(Date.now() + delay);
    this.options.log(`restarting ${unit.spec.name} in ${seconds(delay)}`);
    this.options.onChange?.();
    unit.timer = setTimeout(() => {
      unit.timer = null;
      unit.starting = this.restart(unit);
    }, delay);
  }

  private async restart(unit: Unit): Promise<void> {
    if (this.stopping) return;
    const diedAt = unit.lastExit ? Date.parse(unit.lastExit.at) : Date.now();
    unit.nextStartAt = null;
    this.options.onChange?.();
    try {
      const child = await unit.spec.start((launched) => (unit.child = launched));
      unit.child = child;
      if (this.stopping) return;
      unit.restarts += 1;
      unit.state = 'running';
      unit.since = new Date();
      unit.upAt = Date.now();
      this.options.log(
        `${unit.spec.name} is back (restart ${unit.restarts}, ${seconds(Date.now() - diedAt)} after it stopped)`,
      );
      this.options.onChange?.();
      this.follow(unit, child);
    } catch (error) {
      if (this.stopping) return;
      unit.failures += 1;
      const message = (error as Error).message.split('\n')[0] ?? String(error);
      unit.lastExit = { at: new Date().toISOString(), reason: `did not come back: ${message}` };
      this.options.log(`${unit.spec.name} did not come back: ${message}`);
      if (unit.child?.running()) await this.stopChild(unit, unit.child, 5_000);
      this.schedule(unit);
    } finally {
      unit.starting = null;
    }
  }
}

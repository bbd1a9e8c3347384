// The runner service's public surface: start a runner, list the live ones, the host lock.
export {
  DEFAULT_GRACE_SECONDS,
  DEFAULT_LOCK_DURATION_MS,
  DEFAULT_MAX_STALLED_COUNT,
  DEFAULT_STALLED_INTERVAL_MS,
  RunnerConfigError,
  challengesForTarget,
  startRunnerService,
  stopOnSignals,
} from './runner-service';
export type { RunnerService, RunnerServiceOptions } from './runner-service';
export {
  HEARTBEAT_INTERVAL_MS,
  HEARTBEAT_TTL_SECONDS,
  listRunners,
  runnerKey,
  startHeartbeat,
} from '../../lib/server/queue/runner-heartbeat';
export type { Heartbeat, RunnerList } from '../../lib/server/queue/runner-heartbeat';
export { DEFAULT_HOST_LOCK_FILE, acquireHostLock } from './host-lock';
export type { HostLock, LockHolder } from './host-lock';
export { CANCEL_LOCK_LOST, CANCEL_SHUTDOWN, createJudgingProcessor } from './judging-processor';
export type { JudgingSettings } from './judging-processor';
export { createFinalSessionProcessor, isFinalSessionJob } from './final-session-processor';

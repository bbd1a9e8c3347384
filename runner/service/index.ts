// The runner service's public surface: start a runner, list the live ones, the host lock.
export {
  DEFAULT_GRACE_SECONDS,
  DEFAULT_LOCK_DURATION_MS,
  DEFAULT_STALLED_INTERVAL_MS,
  RunnerConfigError,
  startRunnerService,
  stopOnSignals,
} from './runner-service';
export {
  HEARTBEAT_TTL_SECONDS,
  listRunners,
  runnerKey,
  startHeartbeat,
} from '../../lib/server/queue/runner-heartbeat';
export { acquireHostLock } from './host-lock';

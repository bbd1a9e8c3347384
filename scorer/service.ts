// What the long-running backbone commands (scorer, reconcile) share: the database and queues from the
// environment, timestamped log lines, and a graceful stop on SIGTERM/SIGINT.
import type { Redis } from 'ioredis';
import { db as defaultDb, type Db } from '../lib/server/db/client';
import { createWorkerConnection, queuePrefix, redisUrl } from '../lib/server/queue/connection';
import { createQueueSet, type QueueSet } from '../lib/server/queue/producer';

export function logLine(line: string): void {
  process.stdout.write(`${new Date().toISOString()} ${line}\n`);
}

/** Redis errors repeat once per reconnect attempt: one line per distinct message and minute is enough. */
function throttledErrorLog(log: (line: string) => void, what: string): (error: Error) => void {
  const seen = new Map<string, number>();
  return (error) => {
    const now = Date.now();
    if ((seen.get(error.message) ?? 0) > now - 60_000) return;
    seen.set(error.message, now);
    log(`${what}: ${error.message}`);
  };
}

/** A URL without its credentials, for start-up lines. */
function redactUrl(url: string): string {
  const u = new URL(url);
  u.username = '';
  u.password = '';
  return u.toString();
}

export interface Backbone {
  db: Db;
  queues: QueueSet;
  prefix: string;
  /** Another connection to the same Redis, for a worker or an event listener. */
  connect(purpose: string): Redis;
  close(): Promise<void>;
}

export function openBackbone(name: string): Backbone {
  const onError = throttledErrorLog(logLine, 'redis');
  const connect = (purpose: string) =>
    createWorkerConnection({ connectionName: `perfjudge-${purpose}`, onError });
  const producerConnection = connect(`${name}-producer`);
  const prefix = queuePrefix();
  const queues = createQueueSet({ connection: producerConnection, prefix }, onError);
  const db = defaultDb();
  return {
    db,
    queues,
    prefix,
    connect,
    async close() {
      await queues.close();
      await producerConnection.quit().catch(() => {});
      await db.$disconnect();
    },
  };
}

export function describeBackbone(backbone: Backbone): string {
  return `Redis ${redactUrl(redisUrl())} prefix "${backbone.prefix}"`;
}

/**
 * Resolves on the first SIGTERM or SIGINT (the caller then closes gracefully); a second signal
 * while closing exits at once.
 */
export function shutdownSignal(log: (line: string) => void): Promise<string> {
  return new Promise((resolve) => {
    let received = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (received) {
        log(`${signal} again: exiting without waiting`);
        process.exit(130);
      }
      received = true;
      log(`${signal}: finishing the jobs in hand, then stopping`);
      resolve(signal);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}

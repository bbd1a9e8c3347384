// Records an organizer's (or the platform's) action. Takes a transaction client so the record
// commits or rolls back with the action itself.
import type { Db, Tx } from '../client';
import { toJson } from '../json';

export type AuditAction =
  | 'rejudge.submission'
  | 'rejudge.challenge'
  | 'submission.disqualify'
  | 'submission.reinstate'
  | 'challenge.settings'
  | 'challenge.close'
  | 'challenge.reopen'
  | 'challenge.publish-solutions'
  | 'challenge.hide-solutions'
  | 'challenge.register'
  | 'benchmark.define'
  | 'benchmark.change'
  | 'user.create-organizer'
  | 'user.reset-two-factor'
  | 'api-token.revoke'
  | 'final.start'
  | 'final.cancel'
  | 'final.publish'
  | 'submission.repeat'
  | 'auth.sign-in'
  | 'auth.sign-in-failed';

export interface AppendAuditLogOptions {
  /** Null for the platform itself (seed, reconciler). */
  actorId: string | null;
  action: AuditAction;
  subjectType?: string;
  subjectId?: string;
  reason?: string;
  payload?: unknown;
}

export async function appendAuditLog(db: Db | Tx, options: AppendAuditLogOptions): Promise<void> {
  await db.auditLog.create({
    data: {
      actorId: options.actorId,
      action: options.action,
      subjectType: options.subjectType ?? null,
      subjectId: options.subjectId ?? null,
      reason: options.reason ?? null,
      ...(options.payload !== undefined ? { payload: toJson(options.payload) } : {}),
    },
  });
}

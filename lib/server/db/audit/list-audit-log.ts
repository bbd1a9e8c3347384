// The audit log for the organizer console, newest first, paginated by a keyset cursor.
import { z } from 'zod';
import type { Db } from '../client';

export interface AuditLogRow {
  id: string;
  at: Date;
  /** Null for the platform itself. */
  actor: { name: string; email: string } | null;
  action: string;
  subjectType: string | null;
  subjectId: string | null;
  reason: string | null;
  /** The payload as compact JSON text (shown as text), cut to a readable length. */
  details: string | null;
}

export interface AuditLogPage {
  rows: AuditLogRow[];
  nextCursor: string | null;
}

/**
 * Sign-in records are for the owner's report and the console's "accounts under attack" list;
 * shown here, one guessing run would bury what organizers did.
 */
const SIGN_IN_ACTIONS = ['auth.sign-in', 'auth.sign-in-failed'];

const cursorSchema = z.object({ t: z.iso.datetime(), id: z.string().min(1).max(64) });
const DETAILS_MAX = 400;

function decodeCursor(cursor: string): { at: Date; id: string } | undefined {
  try {
    const parsed = cursorSchema.safeParse(
      JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')),
    );
    return parsed.success ? { at: new Date(parsed.data.t), id: parsed.data.id } : undefined;
  } catch {
    return undefined;
  }
}

/** "precision: null → 0.02; …" for a settings change ({ name: { from, to } }), else compact JSON. */
function describePayload(payload: unknown): string | null {
  if (payload === null || payload === undefined) return null;
  if (typeof payload === 'object' && !Array.isArray(payload)) {
    const entries = Object.entries(payload as Record<string, unknown>);
    const isChange = (v: unknown) =>
      typeof v === 'object' && v !== null && 'from' in v && 'to' in v;
    if (entries.length > 0 && entries.every(([, v]) => isChange(v)))
      return entries
        .map(([name, v]) => {
          const { from, to } = v as { from: unknown; to: unknown };
          const text = (x: unknown) => (x === null ? 'not set' : String(x));
          return `${name}: ${text(from)} → ${text(to)}`;
        })
        .join('; ');
  }
  return JSON.stringify(payload);
}

export async function listAuditLog(
  db: Db,
  options: { cursor?: string; limit?: number; subjectId?: string } = {},
): Promise<AuditLogPage> {
  const limit = Math.min(Math.max(options.limit ?? 50, 1), 200);
  const after = options.cursor ? decodeCursor(options.cursor) : undefined;
  const rows = await db.auditLog.findMany({
    where: {
      subjectId: options.subjectId,
      action: { notIn: SIGN_IN_ACTIONS },
      ...(after
        ? {
            // The lte bound lets the `at` index start at the cursor instead of the newest row.
            at: { lte: after.at },
            OR: [{ at: { lt: after.at } }, { at: after.at, id: { lt: after.id } }],
          }
        : {}),
    },
    orderBy: [{ at: 'desc' }, { id: 'desc' }],
    take: limit + 1,
    select: {
      id: true,
      at: true,
      action: true,
      subjectType: true,
      subjectId: true,
      reason: true,
      payload: true,
      actor: { select: { name: true, email: true } },
    },
  });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    rows: page.map((r) => {
      const json = describePayload(r.payload);
      return {
        id: r.id,
        at: r.at,
        actor: r.actor,
        action: r.action,
        subjectType: r.subjectType,
        subjectId: r.subjectId,
        reason: r.reason,
        details: json && json.length > DETAILS_MAX ? `${json.slice(0, DETAILS_MAX)}…` : json,
      };
    }),
    nextCursor:
      rows.length > limit && last
        ? Buffer.from(JSON.stringify({ t: last.at.toISOString(), id: last.id })).toString(
            'base64url',
          )
        : null,
  };
}

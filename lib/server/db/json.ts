// Typed values (results, manifests, fingerprints) as Prisma JSON column input, and text PostgreSQL
// can store.
import type { Prisma } from './generated/prisma/client';

/**
 * PostgreSQL refuses U+0000 in text and jsonb (22P05), and a contestant's output can hold NUL bytes
 * (a wrong answer's diff lines, a log): they are stored as U+2400 SYMBOL FOR NULL, which reads the
 * same on a page and keeps the rest of the string intact.
 */
export function storableText(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', '\u2400') : text;
}

/** Zod output types carry optional properties, which Prisma's JSON input type does not accept. */
export function toJson(value: unknown): Prisma.InputJsonValue {
  return JSON.parse(
    JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? storableText(v) : v)),
  ) as Prisma.InputJsonValue;
}

// Typed values (results, manifests, fingerprints) as Prisma JSON column input.
import type { Prisma } from './generated/prisma/client';

/** Zod output types carry optional properties, which Prisma's JSON input type does not accept. */
export function toJson(value: unknown): Prisma.InputJsonValue {
  return JSON.parse(JSON.stringify(value)) as Prisma.InputJsonValue;
}

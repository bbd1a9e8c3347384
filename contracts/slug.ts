// A challenge slug: the one pattern every process checks, whether it arrives as a folder name, a
// URL segment, a form field or a job's field. At most 64 characters (the database's and URLs' limit).
import { z } from 'zod';

const SLUG_MAX_LENGTH = 64;
const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;
/** Kebab-case, as test-group ids and edge-case file names are (no length limit of their own). */
export const KEBAB_CASE_PATTERN = /^[a-z0-9][a-z0-9-]*$/;

export const slugSchema = z
  .string()
  .regex(
    SLUG_PATTERN,
    `not a challenge slug (lower-case letters, digits and dashes, at most ${SLUG_MAX_LENGTH} characters)`,
  );

export function isSlug(text: string): boolean {
  return SLUG_PATTERN.test(text);
}

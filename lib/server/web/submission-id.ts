// The submission id of a URL, checked before it reaches the database (ids are cuids).
import { z } from 'zod';

export const submissionIdSchema = z
  .string()
  .min(1, 'submission id is empty')
  .max(64, 'submission id is longer than 64 characters')
  .regex(/^[A-Za-z0-9_-]+$/, 'submission id may hold only letters, digits, _ and -');

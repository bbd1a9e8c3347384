// The challenge slug in a leaderboard address, checked before it reaches the database.
import { z } from 'zod';

export const leaderboardSlugSchema = z
  .string()
  .max(64, 'challenge slug: at most 64 characters')
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'challenge slug: lower-case letters, digits and dashes');

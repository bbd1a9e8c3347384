// The challenge slug in a leaderboard address, checked before it reaches the database.
import { slugSchema } from '../../../contracts';

export const leaderboardSlugSchema = slugSchema;

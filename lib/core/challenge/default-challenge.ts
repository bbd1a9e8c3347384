/**
 * The challenge a command or page means when none is named: the platform's first contest. Its one
 * home (no Node imports, so client components may use it too).
 */
export const DEFAULT_CHALLENGE = 'wordcount';

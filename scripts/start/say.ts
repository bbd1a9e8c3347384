// How `npm start` talks: every line says how long since `npm start` began, so a slow step shows
// where the time went.

/** When `npm start` began (scripts/start.mjs sets it before installing anything). */
let beganAt = Date.now();

/** Sets the clock's start (PERFJUDGE_START_BEGAN_AT, from scripts/start.mjs). */
export function startClock(at: number): void {
  beganAt = at;
}

export const elapsed = () => `${((Date.now() - beganAt) / 1000).toFixed(0)} s`;
export const say = (line: string) => process.stdout.write(`[start ${elapsed()}] ${line}\n`);
export const warn = (line: string) => process.stderr.write(`[start ${elapsed()}] ${line}\n`);

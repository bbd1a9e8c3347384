// Bounds of the organizer's contest settings, shared by the data layer and the browser's form
// check (this file imports nothing, so a client bundle can take it).
export const MAX_SUBMISSIONS_PER_HOUR = 10_000;

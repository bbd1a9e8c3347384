// What the global setup hands the tests: it sets these variables before the workers start (the
// Playwright way of passing data from global setup), and this module is the one test file that
// reads them. The organizer's credentials are fixed: the setup seeds exactly this account.
export const ORGANIZER = {
  email: 'organizer@e2e.perfjudge.test',
  password: 'e2e-organizer-password',
} as const;

export const E2E_VARIABLES = {
  baseUrl: 'PERFJUDGE_E2E_BASE_URL',
  databaseUrl: 'PERFJUDGE_E2E_DATABASE_URL',
} as const;

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the browser tests with npm run test:e2e`);
  return value;
}

/** The private schema's URL (`?schema=`), for the few checks the pages do not show. */
export function e2eDatabaseUrl(): string {
  return required(E2E_VARIABLES.databaseUrl);
}

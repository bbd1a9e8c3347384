// Stands in for the 'server-only' package under vitest: that package throws outside Next.js's
// server bundles, and tests call the web's server modules directly.
export {};

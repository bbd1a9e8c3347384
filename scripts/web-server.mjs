#!/usr/bin/env node
// The web app's production server (what `next start` would be, plus the client's address resolved
// on the connection: scripts/web-server.ts). Usage: node scripts/web-server.mjs [--port N] [--hostname H]
import { register } from 'tsx/esm/api';

// Next.js serves a production build only with NODE_ENV=production, as `next start` sets it.
// eslint-disable-next-line no-restricted-syntax
process.env.NODE_ENV = 'production';
register();
const { main } = await import('./web-server.ts');
// Exit once it has stopped serving: the database pool and Redis connections would keep it alive.
process.exit(await main(process.argv.slice(2)));

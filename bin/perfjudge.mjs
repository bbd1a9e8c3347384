#!/usr/bin/env node
// Entry point of the perfjudge CLI: loads the TypeScript sources through tsx, so `npx perfjudge`
// works right after `npm ci` without a build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv);

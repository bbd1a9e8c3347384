#!/usr/bin/env node
// Entry point of the perfjudge CLI, runnable right after `npm ci` without a build step. It runs
// cli/main.ts from a bundle that bin/start-bundle.mjs keeps up to date with the sources (a start
// then costs about half of loading each module through tsx, or less), or, when that bundle cannot
// be made, from the sources through tsx.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { importBundled } from './start-bundle.mjs';

const REPO = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

function isInCheckout(file) {
  const relative = path.relative(REPO, file);
  return !relative.startsWith('..') && !path.isAbsolute(relative);
}

let tsx;
/** Registers tsx's loader for TypeScript modules, once. */
function registerTsx() {
  tsx ??= import('tsx/esm/api').then(({ register }) => void register());
  return tsx;
}

const bundled = await importBundled(path.join(REPO, 'cli', 'main.ts'));
if (bundled) {
  // A process running bundled code has no TypeScript loader: a challenge's code.ts, found by its
  // folder at run time (lib/core/challenge/challenge-code.ts), is bundled the same way, or, outside
  // this checkout or if that fails, loaded through tsx.
  globalThis[Symbol.for('perfjudge.importTypeScript')] = async (file) =>
    (isInCheckout(file) && (await importBundled(file))) ||
    (await registerTsx(), await import(pathToFileURL(file).href));
}
const { main } = bundled ?? (await registerTsx(), await import('../cli/main.ts'));
process.exitCode = await main(process.argv);

// Pre-bundled starts for bin/perfjudge.mjs. Loading our ~230 TypeScript modules one by one through
// tsx's loader thread was most of a `perfjudge` start (a runner 1.1 CPU s to be ready, `status
// --help` 0.5); one esbuild bundle of cli/main.ts, loaded by Node itself, makes them 0.5 and 0.15
// (docs/CONTRIBUTING.md, "Where CI's time goes"). Plain JavaScript: it runs before any TypeScript
// loader.
//
// The bundle lives in .data/start-bundles/ and never runs stale: each start compares the size and
// modification time of every source file the bundle was made from (esbuild's metafile), of the
// folders holding them (a new file could change what an import resolves to), of this file, the
// tsconfig files, package.json and esbuild's version, and rebuilds when any differs. A build goes to
// a folder of its own, published by renaming a small manifest into place, so a concurrent start
// reads either the old complete bundle or the new one. A bundle that cannot be made returns
// undefined: the caller then runs the sources through tsx, as before.
//
// Our code and three small pure-JavaScript packages only (BUNDLED_PACKAGES): every other package
// stays in node_modules, loaded by Node as before. `import.meta.url` is replaced by each module's
// own source URL, so files opened beside a module (REPO_ROOT, the sandbox helper's C source, the
// generated Prisma client's __dirname) resolve as they did from source.
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const CACHE = path.join(REPO, '.data', 'start-bundles');
/** Files that shape every bundle besides its own sources. */
const BUILD_INPUTS = [
  fileURLToPath(import.meta.url),
  path.join(REPO, 'package.json'),
  path.join(REPO, 'tsconfig.json'),
  path.join(REPO, 'tsconfig.base.json'),
  path.join(REPO, 'node_modules', 'esbuild', 'package.json'),
];
/**
 * A superseded bundle is deleted this long after it was replaced: a process that read the old
 * manifest is loading its chunks within its first seconds (every command's lazy imports of our own
 * code happen at start; a challenge's code is a bundle of its own).
 */
const GRACE_MS = 10 * 60_000;
/**
 * A file changed this shortly before a build could change again without its time changing (a
 * timestamp has the file system's granularity, up to 2 s): its stamp also keeps a hash of its
 * content, compared at each start (a fresh clone's or image's generated files, a just-saved edit).
 */
const RACY_MS = 2_000;
/**
 * Packages bundled with our code, as the contestants' CLI package bundles them: pure JavaScript
 * that opens no file of its own and that no other package is handed objects of. Loading them from
 * node_modules was about 0.06 CPU s of each start (`status --help` 0.18 → 0.12, a scorer 0.58 →
 * 0.50). Their files are inputs like ours, so an `npm ci` that changes them rebuilds the bundle.
 */
const BUNDLED_PACKAGES = new Set(['commander', 'yaml', 'zod']);

/** `[path, mtimeMs, size]`, or undefined if it is gone. */
function stamp(file) {
  const stats = statSync(file, { throwIfNoEntry: false });
  return stats && [file, stats.mtimeMs, stats.size];
}

/** A file's content, or a folder's sorted names (what an import could resolve to), hashed. */
function contentHash(file, content) {
  if (content === undefined)
    content = statSync(file).isDirectory()
      ? readdirSync(file).sort().join('\n')
      : readFileSync(file);
  return createHash('sha256').update(content).digest('base64');
}

function sameStamp([file, mtimeMs, size, hash]) {
  const now = stamp(file);
  return (
    now !== undefined &&
    now[1] === mtimeMs &&
    now[2] === size &&
    (hash === undefined || contentHash(file) === hash)
  );
}

/** The bundle's cache name: its entry's path in the checkout, e.g. `cli-main` (never an `@`). */
function cacheName(entry) {
  return path
    .relative(REPO, entry)
    .replace(/\.[^./\\]+$/, '')
    .replace(/[^A-Za-z0-9]+/g, '-');
}

function readManifest(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function isFresh(manifest) {
  return (
    manifest !== undefined &&
    manifest.repo === REPO &&
    typeof manifest.dir === 'string' &&
    Array.isArray(manifest.stamps) &&
    manifest.stamps.every(sameStamp) &&
    stamp(path.join(CACHE, manifest.dir, 'main.mjs')) !== undefined
  );
}

/** Leaves every package but BUNDLED_PACKAGES (and Node's own modules) to Node at run time. */
const packagesExternal = {
  name: 'packages-external',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.kind === 'entry-point' || path.isAbsolute(args.path)) return undefined;
      const [scope, name] = args.path.split('/');
      const pkg = scope.startsWith('@') ? `${scope}/${name}` : scope;
      return BUNDLED_PACKAGES.has(pkg) ? undefined : { path: args.path, external: true };
    });
  },
};

/**
 * Replaces `import.meta.url` (and .dirname, .filename) by the module's own source location, and
 * hashes each source as read into `hashes`.
 */
const sourceLocation = (hashes) => ({
  name: 'source-location',
  setup(build) {
    build.onLoad({ filter: /\.(?:[cm]?ts|tsx)$/ }, (args) => {
      const code = readFileSync(args.path, 'utf8');
      hashes.set(args.path, contentHash(args.path, code));
      const loader = args.path.endsWith('.tsx') ? 'tsx' : 'ts';
      if (!code.includes('import.meta')) return { contents: code, loader };
      return {
        contents: code
          .replace(/\bimport\.meta\.url\b/g, JSON.stringify(pathToFileURL(args.path).href))
          .replace(/\bimport\.meta\.dirname\b/g, JSON.stringify(path.dirname(args.path)))
          .replace(/\bimport\.meta\.filename\b/g, JSON.stringify(args.path)),
        loader,
      };
    });
  },
});

class SourcesChanged extends Error {
  constructor() {
    super('the sources changed while they were bundled');
  }
}

let building = Promise.resolve();
/**
 * Bundles `entry` into a new folder; returns its manifest. One build at a time in a process, each
 * stopping esbuild's service process after it: a runner that bundled a challenge's code keeps no
 * esbuild child alive beside it.
 */
function build(entry, name) {
  const result = building.then(async () => {
    const esbuild = await import('esbuild');
    try {
      return await buildWith(esbuild.build, entry, name);
    } finally {
      esbuild.stop();
    }
  });
  building = result.catch(() => {});
  return result;
}

async function buildWith(esbuild, entry, name) {
  const hashes = new Map();
  const began = Date.now();
  const dir = path.join(CACHE, `${name}@${began.toString(36)}-${process.pid}`);
  const result = await esbuild({
    entryPoints: { main: entry },
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunk-[hash]',
    absWorkingDir: REPO,
    bundle: true,
    // Each command's modules in chunks of their own, loaded when main.ts imports the command.
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // A bundled CommonJS package (commander) requires Node's modules: an ES module has no require.
    banner: {
      js: "import { createRequire as __pjCreateRequire } from 'node:module';\nconst require = __pjCreateRequire(import.meta.url);",
    },
    keepNames: true,
    // Stack traces name the TypeScript sources, as under tsx.
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [packagesExternal, sourceLocation(hashes)],
  });
  const sources = Object.keys(result.metafile.inputs).map((input) => path.resolve(REPO, input));
  const folders = [...new Set(sources.map((source) => path.dirname(source)))];
  const stamps = [...sources, ...folders, ...BUILD_INPUTS].map(stamp);
  if (stamps.includes(undefined)) throw new Error('a source vanished while bundling');
  // Changed while esbuild read it: this bundle may hold either version.
  if (stamps.some(([, mtimeMs]) => mtimeMs >= began)) throw new SourcesChanged();
  for (const entry of stamps)
    if (entry[1] >= began - RACY_MS) entry.push(hashes.get(entry[0]) ?? contentHash(entry[0]));
  return { repo: REPO, dir: path.basename(dir), stamps };
}

/** Deletes this entry's other bundles once superseded for GRACE_MS, and stray temporary files. */
function collectGarbage(name, keep) {
  const now = Date.now();
  for (const entry of readdirSync(CACHE)) {
    if (entry === keep || !(entry.startsWith(`${name}@`) || entry.endsWith('.tmp'))) continue;
    const full = path.join(CACHE, entry);
    const stats = statSync(full, { throwIfNoEntry: false });
    if (stats && now - stats.mtimeMs > GRACE_MS) rmSync(full, { recursive: true, force: true });
  }
}

/** Publishes `manifest` as the entry's current bundle (renamed into place: never half-written). */
function publish(manifestFile, manifest, previous) {
  // The superseded bundle's grace starts now.
  if (previous?.dir) {
    const now = new Date();
    try {
      utimesSync(path.join(CACHE, previous.dir), now, now);
    } catch {
      // Already gone.
    }
  }
  const temp = `${manifestFile}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(manifest));
  renameSync(temp, manifestFile);
}

/**
 * The module `entry` (a TypeScript file of this checkout) loaded from its up-to-date bundle, built
 * first if needed; undefined, after a one-line notice on stderr, if it cannot be bundled.
 */
export async function importBundled(entry) {
  const name = cacheName(entry);
  const manifestFile = path.join(CACHE, `${name}.json`);
  let manifest = readManifest(manifestFile);
  if (!isFresh(manifest)) {
    try {
      mkdirSync(CACHE, { recursive: true });
      const previous = manifest;
      // A second try if a source changed while it was read (an editor saving, a checkout).
      manifest = await build(entry, name).catch((error) =>
        error instanceof SourcesChanged ? build(entry, name) : Promise.reject(error),
      );
      try {
        publish(manifestFile, manifest, previous);
        collectGarbage(name, manifest.dir);
      } catch {
        // Another start's publication or clean-up won the race: this bundle still runs.
      }
    } catch (error) {
      // esbuild's own message is `Build failed with 1 error:`; its first error says what.
      const [first] = error?.errors ?? [];
      const reason = first
        ? `${first.location ? `${first.location.file}:${first.location.line}: ` : ''}${first.text}`
        : String(error?.message ?? error).split('\n')[0];
      process.stderr.write(
        `perfjudge: running ${path.relative(REPO, entry)} from source through tsx (could not bundle it: ${reason})\n`,
      );
      return undefined;
    }
  }
  process.setSourceMapsEnabled(true);
  return import(pathToFileURL(path.join(CACHE, manifest.dir, 'main.mjs')).href);
}

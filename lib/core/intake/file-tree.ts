// The files of a folder as intake sees them (the template's, the harness's, an applied tree): read
// only, links never followed, so a symbolic link shows as one instead of as its target.
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';

export interface TreeEntry {
  /** Relative to the root, `/`-separated. */
  path: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
}

/** Every entry under root (without following links), `.git` skipped. */
export async function walkTree(root: string): Promise<TreeEntry[]> {
  const entries: TreeEntry[] = [];
  const visit = async (relative: string): Promise<void> => {
    const names = (await readdir(path.join(root, relative))).sort();
    for (const name of names) {
      if (relative === '' && name === '.git') continue;
      const rel = relative === '' ? name : `${relative}/${name}`;
      const stat = await lstat(path.join(root, rel));
      const type = stat.isSymbolicLink()
        ? 'symlink'
        : stat.isDirectory()
          ? 'directory'
          : stat.isFile()
            ? 'file'
            : 'other';
      entries.push({ path: rel, type });
      if (type === 'directory') await visit(rel);
    }
  };
  await visit('');
  return entries;
}

export async function listFiles(root: string): Promise<string[]> {
  return (await walkTree(root)).filter((e) => e.type === 'file').map((e) => e.path);
}

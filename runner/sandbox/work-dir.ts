// Hands a run's work directory to the unprivileged sandbox user, without ever following a link the
// untrusted code may have planted there on an earlier run.
import { UnavailableError } from '../../contracts';
import { lchown, lstat, readdir, stat } from 'node:fs/promises';
import path from 'node:path';

export interface SandboxIdentity {
  uid: number;
  gid: number;
}

/**
 * Makes `dir` and everything under it owned by `owner`. Symbolic links are changed themselves
 * (lchown), never their targets; a non-directory with several hard links is left alone, since one of
 * its other names could be a host file (fs.protected_hardlinks normally forbids making such links).
 */
export async function handOverWorkDir(dir: string, owner: SandboxIdentity): Promise<void> {
  const top = await lstat(dir);
  if (!top.isDirectory()) throw new Error(`sandbox workDir ${dir} is not a directory`);
  await walk(dir, owner, top.uid, top.gid);
}

async function walk(dir: string, owner: SandboxIdentity, uid: number, gid: number): Promise<void> {
  if (uid !== owner.uid || gid !== owner.gid) await lchown(dir, owner.uid, owner.gid);
  for (const name of await readdir(dir)) {
    const full = path.join(dir, name);
    const s = await lstat(full);
    if (s.isDirectory()) await walk(full, owner, s.uid, s.gid);
    else if (s.uid === owner.uid && s.gid === owner.gid) continue;
    else if (s.isSymbolicLink() || s.nlink === 1) await lchown(full, owner.uid, owner.gid);
  }
}

/** The permission bits that apply to `owner` (a rough access(2) for another user; no ACLs). */
function bitsFor(s: { uid: number; gid: number; mode: number }, owner: SandboxIdentity): number {
  if (s.uid === owner.uid) return (s.mode >> 6) & 7;
  if (s.gid === owner.gid) return (s.mode >> 3) & 7;
  return s.mode & 7;
}

/**
 * The untrusted code reads a read-only mount as the sandbox user: the source itself must be
 * readable by it (a directory also searchable). The folders above it need not be: the helper opens
 * the source with the runner's privileges and bubblewrap mounts that descriptor. Checked up front so
 * the error names the culprit.
 */
export async function assertReadable(target: string, owner: SandboxIdentity): Promise<void> {
  const self = await stat(target).catch((error: NodeJS.ErrnoException) => {
    throw new UnavailableError(
      `cannot mount ${target} into the sandbox: ${error.code ?? error.message}`,
    );
  });
  const need = self.isDirectory() ? 5 : 4;
  if ((bitsFor(self, owner) & need) !== need) {
    throw new UnavailableError(
      `the sandbox user (uid ${owner.uid}) cannot read ${target} (chmod o+r${self.isDirectory() ? 'x' : ''} it)`,
    );
  }
}

/**
 * Where the helper cannot stage the sources (a container's root without the right to make a mount
 * namespace), bubblewrap resolves them as the sandbox user: every folder above must be searchable
 * by it, and the source readable.
 */
export async function assertReachable(target: string, owner: SandboxIdentity): Promise<void> {
  await assertReadable(target, owner);
  let dir = path.dirname(path.resolve(target));
  for (;;) {
    const s = await stat(dir);
    if ((bitsFor(s, owner) & 1) === 0) {
      throw new UnavailableError(
        `the sandbox user (uid ${owner.uid}) cannot reach ${target}: ${dir} is not searchable by it, ` +
          'and this host does not let the judge mount it for the sandbox (no CAP_SYS_ADMIN, as in a ' +
          `container): chmod o+x ${dir}, or keep perfjudge (npm install -g) and its data ` +
          // Not the data folder's own path: the judge rewrites that to /judge/data in what it shows.
          "where other users can enter (root's data is under /var/cache unless PERFJUDGE_DATA_DIR " +
          'moves it)',
      );
    }
    const parent = path.dirname(dir);
    if (parent === dir) return;
    dir = parent;
  }
}

// Reads what a downloaded template holds, without trusting its file name: a .tar.gz must be a gzip
// stream of a ustar archive, a .zip must be a zip; both list their member paths.
import { gunzipSync } from 'node:zlib';

const GZIP_MAGIC = [0x1f, 0x8b];
const ZIP_LOCAL_HEADER = 0x04034b50;
const ZIP_CENTRAL_HEADER = 0x02014b50;

function cString(block: Buffer, start: number, length: number): string {
  const field = block.subarray(start, start + length);
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? field.length : end).toString('utf8');
}

/** Member paths of a gzipped tarball; throws unless it is one. */
export function listTarGz(file: Buffer): string[] {
  if (file[0] !== GZIP_MAGIC[0] || file[1] !== GZIP_MAGIC[1])
    throw new Error('not gzip: the first bytes are not 1f 8b');
  const tar = gunzipSync(file);
  const names: string[] = [];
  for (let offset = 0; offset + 512 <= tar.length;) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    if (cString(header, 257, 6) !== 'ustar') throw new Error(`no ustar header at ${offset}`);
    const name = cString(header, 0, 100);
    const prefix = cString(header, 345, 155);
    const size = parseInt(cString(header, 124, 12).trim() || '0', 8);
    const type = String.fromCharCode(header[156] ?? 0);
    // Pax extended headers ('x', 'g') describe the next member; they are not members themselves.
    if (type !== 'x' && type !== 'g') names.push(prefix ? `${prefix}/${name}` : name);
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return names;
}

/** Member paths of a zip archive (from its central directory); throws unless it is one. */
export function listZip(file: Buffer): string[] {
  if (file.readUInt32LE(0) !== ZIP_LOCAL_HEADER) throw new Error('not a zip: no local file header');
  const names: string[] = [];
  for (let offset = 0; offset + 46 <= file.length; offset++) {
    if (file.readUInt32LE(offset) !== ZIP_CENTRAL_HEADER) continue;
    const nameLength = file.readUInt16LE(offset + 28);
    names.push(file.subarray(offset + 46, offset + 46 + nameLength).toString('utf8'));
    offset += 45 + nameLength;
  }
  return names;
}

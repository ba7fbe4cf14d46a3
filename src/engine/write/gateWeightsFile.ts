// The framing the poison gate's two weight files share (poisonGateModel.ts, poisonGateHidden.ts): a 64-byte
// header opening with a 4-character magic and a u32 version, bytes 32..63 the SHA-256 of everything after it.
import { createHash } from 'node:crypto';

export const HEADER_BYTES = 64;

/** How a file names itself in errors: "weights file" / "a weights file" / "weights version", etc. */
export interface FileNames {
  file: string;
  kind: string;
  version: string;
  checksum: string;
  /** What the checksum covers ("table", "body"). */
  body: string;
}

/** Checks the bytes, the header's length, magic and version; returns a view of the file. */
export function openHeader(bytes: Uint8Array, magic: string, version: number | readonly number[], names: FileNames, fail: (message: string) => Error): DataView {
  if (!(bytes instanceof Uint8Array)) throw fail('weights are not bytes');
  if (bytes.length < HEADER_BYTES) throw fail(`${names.file} too short (${bytes.length} bytes, header needs ${HEADER_BYTES})`);
  const got = String.fromCharCode(bytes[0], bytes[1], bytes[2], bytes[3]);
  if (got !== magic) throw fail(`not ${names.kind} (magic ${JSON.stringify(got)}, expected ${magic})`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const v = dv.getUint32(4, true);
  const known: readonly number[] = typeof version === 'number' ? [version] : version;
  if (!known.includes(v)) throw fail(`unsupported ${names.version} ${v} (this build reads ${known.join(' or ')})`);
  return dv;
}

/** The SHA-256 (hex) of everything after the header, checked against the one the header records. */
export function verifiedBodyHash(bytes: Uint8Array, names: FileNames, fail: (message: string) => Error): string {
  const recorded = Buffer.from(bytes.subarray(32, HEADER_BYTES)).toString('hex');
  const got = createHash('sha256').update(bytes.subarray(HEADER_BYTES)).digest('hex');
  if (recorded !== got) throw fail(`${names.checksum} mismatch (header ${recorded.slice(0, 12)}…, ${names.body} ${got.slice(0, 12)}…): the file is corrupt`);
  return got;
}

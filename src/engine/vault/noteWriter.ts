// Writes and moves vault notes. Invariants: secrets are masked before bytes reach the disk (R-MEM-7;
// a failed scan refuses the write); an existing different file is never overwritten unless asked —
// the note takes `<name>-2.md` instead; writes go temp file + link/rename, so a reader never sees half a note.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MemoryError } from '../errors';
import { maskOrWithhold, type SecretClass } from '../write/mask';
import { serializeNote } from './noteParser';
import { VAULT_DIRS, noteId, quarantineDir, resolveInVault } from './vaultLayout';

export interface WriteNoteOptions {
  /** Default true. */
  mask?: boolean;
  /** Replace an existing different file at relPath (default false: take a free `-N` name). */
  overwrite?: boolean;
}

export interface WriteNoteResult {
  relPath: string;
  id: string;
  path: string;
  /** False when an identical file already existed. */
  written: boolean;
  masked: { count: number; classes: SecretClass[] };
}

function maskValue(v: unknown, acc: { count: number; classes: SecretClass[] }): unknown {
  if (typeof v === 'string') {
    const r = maskOrWithhold(v);
    if (!r.ok) throw new MemoryError('E_REFUSED', 'secret scan failed; note withheld', { reason: r.reason });
    acc.count += r.count;
    for (const c of r.classes) if (!acc.classes.includes(c)) acc.classes.push(c);
    return r.text;
  }
  if (Array.isArray(v)) return v.map((x) => maskValue(x, acc));
  if (v && typeof v === 'object' && !(v instanceof Date)) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) o[k] = maskValue(x, acc);
    return o;
  }
  return v;
}

function withSuffix(relPath: string, suffix: string): string {
  const m = /^(.*?)(\.md)?$/i.exec(relPath);
  return `${m?.[1] ?? relPath}${suffix}${m?.[2] ?? ''}`;
}

function tempPathFor(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
}

/**
 * Replaces an existing note's text in place: same-folder temp file + rename, so a reader (the watcher,
 * the user's editor) never sees half a note. For rewrites of a known note (`## History` bullets).
 */
export async function replaceNoteFile(abs: string, text: string): Promise<void> {
  const tmp = tempPathFor(abs);
  await fs.promises.writeFile(tmp, text, { encoding: 'utf8', flag: 'wx' });
  try {
    await fs.promises.rename(tmp, abs);
  } finally {
    await fs.promises.rm(tmp, { force: true });
  }
}

/** Links `src` to `dst` only if `dst` does not exist (atomic create). Falls back to check+rename. */
async function placeNoClobber(src: string, dst: string): Promise<boolean> {
  try {
    await fs.promises.link(src, dst);
    await fs.promises.unlink(src);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV' && code !== 'ENOSYS') throw e;
    // Filesystems without hard links: a small race window, acceptable for a user's own vault.
    if (fs.existsSync(dst)) return false;
    await fs.promises.rename(src, dst);
    return true;
  }
}

async function readIfExists(p: string): Promise<string | null> {
  try { return await fs.promises.readFile(p, 'utf8'); } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** Masks, serialises and writes a note; returns where it landed. Visible (non-hidden) paths only. */
export async function writeNote(
  vaultDir: string,
  relPath: string,
  note: { frontmatter?: Record<string, unknown>; body: string },
  options: WriteNoteOptions = {},
): Promise<WriteNoteResult> {
  if (typeof note?.body !== 'string') throw new MemoryError('E_BAD_INPUT', 'note body must be text');
  if (!/\.md$/i.test(relPath)) throw new MemoryError('E_BAD_INPUT', 'note path must end in .md');
  if (relPath.split('/')[0] === VAULT_DIRS.logs) throw new MemoryError('E_BAD_INPUT', 'notes are not written into logs/');
  resolveInVault(vaultDir, relPath);
  const masked = { count: 0, classes: [] as SecretClass[] };
  let fm = note.frontmatter ?? {};
  let body = note.body;
  if (options.mask !== false) {
    fm = maskValue(fm, masked) as Record<string, unknown>;
    body = maskValue(body, masked) as string;
  }
  const content = serializeNote({ frontmatter: fm, body });

  for (let n = 1; n < 1000; n++) {
    const rel = n === 1 ? relPath : withSuffix(relPath, `-${n}`);
    const abs = resolveInVault(vaultDir, rel);
    const existing = await readIfExists(abs);
    if (existing !== null) {
      if (existing === content) return { relPath: rel, id: noteId(rel), path: abs, written: false, masked };
      if (!options.overwrite) continue;
    }
    await fs.promises.mkdir(path.dirname(abs), { recursive: true });
    const tmp = tempPathFor(abs);
    await fs.promises.writeFile(tmp, content, { encoding: 'utf8', flag: 'wx' });
    try {
      if (existing !== null && options.overwrite) {
        await fs.promises.rename(tmp, abs);
        return { relPath: rel, id: noteId(rel), path: abs, written: true, masked };
      }
      if (await placeNoClobber(tmp, abs)) return { relPath: rel, id: noteId(rel), path: abs, written: true, masked };
    } finally {
      await fs.promises.rm(tmp, { force: true });
    }
  }
  throw new MemoryError('E_REFUSED', 'no free file name for the note');
}

/**
 * Moves a note (hidden paths allowed: quarantine). A taken target gets `<name>-<suffix>.md`
 * (`restored` by default, then `-restored-2` …). Never overwrites.
 */
export async function moveNote(vaultDir: string, fromRel: string, toRel: string, opts: { suffix?: string } = {}): Promise<{ relPath: string; id: string; path: string }> {
  const from = resolveInVault(vaultDir, fromRel, { allowHidden: true });
  try {
    const st = await fs.promises.lstat(from);
    if (!st.isFile()) throw new MemoryError('E_BAD_INPUT', 'only note files can be moved');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new MemoryError('E_NOT_FOUND', 'note to move is missing');
    throw e;
  }
  const suffix = opts.suffix ?? 'restored';
  for (let n = 0; n < 1000; n++) {
    const rel = n === 0 ? toRel : withSuffix(toRel, n === 1 ? `-${suffix}` : `-${suffix}-${n}`);
    const abs = resolveInVault(vaultDir, rel, { allowHidden: true });
    await fs.promises.mkdir(path.dirname(abs), { recursive: true });
    if (await placeNoClobber(from, abs)) return { relPath: rel, id: noteId(rel), path: abs };
  }
  throw new MemoryError('E_REFUSED', 'no free file name for the moved note');
}

/** Moves a note into `.quarantine/<quarantineId>/<relPath>`. */
export function quarantineNote(vaultDir: string, relPath: string, quarantineId: string) {
  return moveNote(vaultDir, relPath, `${quarantineDir(quarantineId)}/${relPath}`, { suffix: 'dup' });
}

/** Moves a quarantined note back to its original path (`<name>-restored.md` if that is taken). */
export function restoreNote(vaultDir: string, quarantinedRel: string) {
  const m = /^\.quarantine\/[^/]+\/(.+)$/.exec(quarantinedRel);
  if (!m) throw new MemoryError('E_BAD_ID', 'not a quarantined note path', { reason: 'not_quarantine' });
  return moveNote(vaultDir, quarantinedRel, m[1], { suffix: 'restored' });
}

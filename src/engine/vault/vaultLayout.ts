// The vault's folder layout, note ids and the one place that turns an id into a file path.
// Invariant: resolveNoteId/resolveInVault never return a path outside the vault — not by `..`,
// absolute paths, NUL, backslashes, or a symlink whose real target leaves the vault (E_BAD_ID).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MemoryError } from '../errors';
import type { Scope } from '../types';

export const VAULT_DIRS = {
  semantic: 'semantic',
  procedural: 'procedural',
  projects: 'projects',
  projectTypes: 'project-types',
  quarantine: '.quarantine',
  logs: 'logs',
} as const;

export const LONGTERM_FILE = 'longterm.md';
export const NOTE_ID_PREFIX = 'vt:';

export function projectDir(projectId: string): string {
  return `${VAULT_DIRS.projects}/${safeSegment(projectId)}`;
}
export function projectTypeDir(type: string): string {
  return `${VAULT_DIRS.projectTypes}/${safeSegment(type)}`;
}
export function quarantineDir(quarantineId: string): string {
  return `${VAULT_DIRS.quarantine}/${safeSegment(quarantineId)}`;
}
/** `logs/YYYY-MM-DD.md` for a local day string. */
export function dailyLogRelPath(day: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) throw new MemoryError('E_BAD_INPUT', 'day must be YYYY-MM-DD');
  return `${VAULT_DIRS.logs}/${day}.md`;
}

/** A single folder name taken from an id or type; refuses anything that could change the path shape. */
export function safeSegment(s: string): string {
  if (typeof s !== 'string' || s.length === 0 || s.length > 200 || s === '.' || s === '..' || /[\\/\0:]/.test(s)) {
    throw new MemoryError('E_BAD_ID', 'not a valid folder name', { reason: 'segment' });
  }
  return s;
}

/**
 * Validates a vault-relative path written with `/` and returns it unchanged. Refuses empty,
 * absolute, drive-letter, NUL, backslash, `.`/`..`/empty segments.
 */
export function checkRelPath(rel: string, opts: { allowHidden?: boolean } = {}): string {
  const bad = (reason: string) => new MemoryError('E_BAD_ID', 'note path refused', { reason });
  if (typeof rel !== 'string' || rel.length === 0) throw bad('empty');
  if (rel.length > 1024) throw bad('too_long');
  if (rel.includes('\0')) throw bad('nul');
  // Backslashes are separators on Windows and escape tricks elsewhere; ids always use `/`.
  if (rel.includes('\\')) throw bad('backslash');
  if (rel.startsWith('/') || /^[A-Za-z]:/.test(rel)) throw bad('absolute');
  const segs = rel.split('/');
  for (const s of segs) {
    if (s === '' || s === '.' || s === '..') throw bad('dot_segment');
    if (!opts.allowHidden && s.startsWith('.')) throw bad('hidden');
  }
  return rel;
}

/** `vt:<posix rel path>`; accepts OS separators in the input. */
export function noteId(relPath: string): string {
  const posix = relPath.split(path.sep).join('/');
  return NOTE_ID_PREFIX + checkRelPath(posix, { allowHidden: true });
}

/** The relative path inside a `vt:` id (validated). */
export function relPathOfId(id: string, opts: { allowHidden?: boolean } = {}): string {
  if (typeof id !== 'string' || !id.startsWith(NOTE_ID_PREFIX)) {
    throw new MemoryError('E_BAD_ID', 'not a vault note id', { reason: 'prefix' });
  }
  return checkRelPath(id.slice(NOTE_ID_PREFIX.length), opts);
}

function isInside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function realpathOrNull(p: string): string | null {
  try { return fs.realpathSync(p); } catch { return null; }
}

/**
 * Absolute path for a vault-relative path, after lexical and symlink checks. The file need not
 * exist; then the nearest existing ancestor must really be inside the vault.
 */
export function resolveInVault(vaultDir: string, relPath: string, opts: { allowHidden?: boolean } = {}): string {
  checkRelPath(relPath, opts);
  const root = path.resolve(vaultDir);
  const abs = path.resolve(root, ...relPath.split('/'));
  if (!isInside(root, abs) || abs === root) throw new MemoryError('E_BAD_ID', 'note path refused', { reason: 'outside' });
  const realRoot = realpathOrNull(root) ?? root;
  let probe = abs;
  while (true) {
    const real = realpathOrNull(probe);
    if (real !== null) {
      if (!isInside(realRoot, real)) throw new MemoryError('E_BAD_ID', 'note path refused', { reason: 'symlink_outside' });
      break;
    }
    const parent = path.dirname(probe);
    if (parent === probe || !isInside(root, parent)) break;
    probe = parent;
  }
  return abs;
}

/** Absolute path of a `vt:` id. Hidden folders (`.quarantine/`) only with allowHidden. */
export function resolveNoteId(vaultDir: string, id: string, opts: { allowHidden?: boolean } = {}): string {
  return resolveInVault(vaultDir, relPathOfId(id, opts), opts);
}

/** Scope implied by the folder: projects/<id>/ → project, project-types/<t>/ → type, else global. */
export function scopeOfPath(relPath: string): Scope {
  const segs = relPath.split('/');
  if (segs.length >= 3 && segs[0] === VAULT_DIRS.projects) return { project: segs[1] };
  if (segs.length >= 3 && segs[0] === VAULT_DIRS.projectTypes) return { projectType: segs[1] };
  return {};
}

export function isHiddenRelPath(relPath: string): boolean {
  return relPath.split('/').some((s) => s.startsWith('.'));
}

/** The local calendar day `YYYY-MM-DD` of an instant in an IANA time zone. */
export function localDay(at: Date | number, timeZone: string): string {
  const d = typeof at === 'number' ? new Date(at) : at;
  if (!(d instanceof Date) || Number.isNaN(d.getTime())) throw new MemoryError('E_BAD_INPUT', 'invalid date');
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(d);
  } catch {
    throw new MemoryError('E_BAD_INPUT', 'unknown time zone');
  }
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')}`;
}

/** A note's file name from its first line or summary: lower-case ASCII words, at most 60 chars, never empty. */
export function noteFileSlug(s: string): string {
  const base = s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/g, '');
  return base || 'note';
}

// Walks the vault and parses every note: the input to "Rebuild index" (SPEC R-STORE-4).
// Skips hidden folders (`.quarantine/`), `logs/` and `longterm.md` (their own layers); never follows a
// symlink whose real target leaves the vault; binary/huge files become problem entries and a log line
// with a code and a path hash — never note text or the path itself.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../host';
import { nullLogger } from '../host';
import { errorCode } from '../errors';
import { MAX_NOTE_BYTES, parseNote, type ParsedNote } from './noteParser';
import { LONGTERM_FILE, VAULT_DIRS, noteId } from './vaultLayout';

export type ScanProblemCode = 'too_large' | 'binary' | 'symlink_outside' | 'unreadable';

export interface ScanEntry {
  relPath: string;
  id: string;
  /** Absent when the file was not parsed (see problem). Binary/huge files give parsed.skipped too. */
  parsed?: ParsedNote;
  problem?: { code: ScanProblemCode | string; message: string };
}

export interface ScanOptions {
  logger?: Logger;
  maxBytes?: number;
  /** The caller's index: notes known to be captured stay derived (R-MEM-4). */
  knownDerived?: (relPath: string) => boolean;
  /** Parallel file reads; 16 keeps a 10k-note scan I/O bound without exhausting descriptors. */
  concurrency?: number;
}

/** Short, stable, non-reversible path tag for logs. */
export function pathHash(relPath: string): string {
  return createHash('sha256').update(relPath).digest('hex').slice(0, 12);
}

interface Candidate { relPath: string; abs: string; problem?: ScanEntry['problem'] }

async function listCandidates(vaultDir: string, logger: Logger): Promise<Candidate[]> {
  const root = path.resolve(vaultDir);
  const realRoot = await fs.promises.realpath(root);
  const inside = (p: string) => {
    const rel = path.relative(realRoot, p);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  };
  const out: Candidate[] = [];
  const walk = async (dirAbs: string, dirRel: string): Promise<void> => {
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(dirAbs, { withFileTypes: true });
    } catch (e) {
      logger.warn('vault.scan.dir_unreadable', { code: errorCode(e), pathHash: pathHash(dirRel) });
      return;
    }
    for (const ent of entries) {
      const name = ent.name;
      if (name.startsWith('.')) continue;
      const rel = dirRel ? `${dirRel}/${name}` : name;
      if (!dirRel && (name === VAULT_DIRS.logs || name === LONGTERM_FILE)) continue;
      const abs = path.join(dirAbs, name);
      if (ent.isSymbolicLink()) {
        let real: string;
        let stat: fs.Stats;
        try {
          real = await fs.promises.realpath(abs);
          stat = await fs.promises.stat(real);
        } catch (e) {
          logger.warn('vault.scan.symlink_broken', { code: errorCode(e), pathHash: pathHash(rel) });
          continue;
        }
        if (!inside(real)) {
          if (/\.md$/i.test(name) || stat.isDirectory()) {
            logger.warn('vault.scan.skipped', { code: 'symlink_outside', pathHash: pathHash(rel) });
            out.push({ relPath: rel, abs, problem: { code: 'symlink_outside', message: 'symlink leads outside the vault; not followed' } });
          }
          continue;
        }
        // A directory link inside the vault would list its notes twice (or loop): the real folder is scanned anyway.
        if (stat.isFile() && /\.md$/i.test(name)) out.push({ relPath: rel, abs: real });
        continue;
      }
      if (ent.isDirectory()) await walk(abs, rel);
      else if (ent.isFile() && /\.md$/i.test(name)) out.push({ relPath: rel, abs });
    }
  };
  await walk(root, '');
  out.sort((a, b) => (a.relPath < b.relPath ? -1 : a.relPath > b.relPath ? 1 : 0));
  return out;
}

async function readOne(c: Candidate, opts: Required<Pick<ScanOptions, 'maxBytes'>> & ScanOptions, logger: Logger): Promise<ScanEntry> {
  const id = noteId(c.relPath);
  if (c.problem) return { relPath: c.relPath, id, problem: c.problem };
  try {
    const st = await fs.promises.stat(c.abs);
    if (st.size > opts.maxBytes) {
      logger.warn('vault.scan.skipped', { code: 'too_large', pathHash: pathHash(c.relPath), bytes: st.size });
      return { relPath: c.relPath, id, problem: { code: 'too_large', message: `larger than ${opts.maxBytes} bytes; not indexed` } };
    }
    const buf = await fs.promises.readFile(c.abs);
    const parsed = parseNote(c.relPath, buf, { maxBytes: opts.maxBytes, knownDerived: opts.knownDerived?.(c.relPath) });
    if (parsed.skipped) {
      const p = parsed.problems[0];
      logger.warn('vault.scan.skipped', { code: p.code, pathHash: pathHash(c.relPath) });
      return { relPath: c.relPath, id, parsed, problem: p };
    }
    for (const p of parsed.problems) logger.info('vault.scan.problem', { code: p.code, pathHash: pathHash(c.relPath) });
    return { relPath: c.relPath, id, parsed };
  } catch (e) {
    logger.warn('vault.scan.skipped', { code: 'unreadable', err: errorCode(e), pathHash: pathHash(c.relPath) });
    return { relPath: c.relPath, id, problem: { code: 'unreadable', message: `could not read (${errorCode(e)})` } };
  }
}

/** Yields entries in path order, reading up to `concurrency` files at a time. */
export async function* iterateVault(vaultDir: string, options: ScanOptions = {}): AsyncGenerator<ScanEntry> {
  const logger = options.logger ?? nullLogger;
  const opts = { ...options, maxBytes: options.maxBytes ?? MAX_NOTE_BYTES };
  const conc = Math.max(1, options.concurrency ?? 16);
  let candidates: Candidate[];
  try {
    candidates = await listCandidates(vaultDir, logger);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return; // no vault yet: nothing to index
    throw e;
  }
  for (let i = 0; i < candidates.length; i += conc) {
    const batch = await Promise.all(candidates.slice(i, i + conc).map((c) => readOne(c, opts, logger)));
    for (const e of batch) yield e;
  }
}

/** Every note in the vault, in path order. */
export async function scanVault(vaultDir: string, options: ScanOptions = {}): Promise<ScanEntry[]> {
  const out: ScanEntry[] = [];
  for await (const e of iterateVault(vaultDir, options)) out.push(e);
  const logger = options.logger ?? nullLogger;
  logger.info('vault.scan.done', { notes: out.filter((e) => e.parsed && !e.parsed.skipped).length, problems: out.filter((e) => e.problem).length });
  return out;
}

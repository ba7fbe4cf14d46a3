// Wikilink resolution and the backlinks index over vault note ids (`vt:<rel path>`).
// Resolution is Obsidian-like: exact path (with or without .md), then path suffix, then basename,
// all case-insensitive; ties go to the source's own folder, then the shortest path, then path order,
// and are reported as ambiguous. Links are stored raw and re-resolved lazily after any change, so a
// note added later repairs links that were broken before.
import { NOTE_ID_PREFIX } from './vaultLayout';

export interface BrokenLink { from: string; target: string }
export interface AmbiguousLink { from: string; target: string; chosen: string; candidates: string[] }

type LinkInput = string | { target: string };

function keyOf(relPath: string): string {
  return relPath.replace(/\.md$/i, '').toLowerCase();
}

function normalizeTarget(t: string): string {
  return t.trim().replace(/\\/g, '/').replace(/^\.\//, '').replace(/^\/+/, '').replace(/\.md$/i, '').toLowerCase();
}

function dirOf(rel: string): string {
  const i = rel.lastIndexOf('/');
  return i < 0 ? '' : rel.slice(0, i).toLowerCase();
}

export class LinkGraph {
  private readonly raw = new Map<string, string[]>();
  private byKey = new Map<string, string>();
  private byBase = new Map<string, string[]>();
  private resolved: { out: Map<string, string[]>; back: Map<string, string[]>; broken: BrokenLink[]; ambiguous: AmbiguousLink[] } | null = null;

  /** Sets (or replaces) a note's outgoing links. */
  setNote(id: string, links: LinkInput[]): void {
    const targets = links.map((l) => (typeof l === 'string' ? l : l.target)).filter((t) => typeof t === 'string' && t.trim() !== '');
    const isNew = !this.raw.has(id);
    this.raw.set(id, targets);
    if (isNew) this.indexAdd(id);
    this.resolved = null;
  }

  removeNote(id: string): void {
    if (!this.raw.delete(id)) return;
    this.rebuildIndex();
    this.resolved = null;
  }

  has(id: string): boolean { return this.raw.has(id); }
  noteIds(): string[] { return [...this.raw.keys()].sort(); }

  private indexAdd(id: string): void {
    const rel = id.slice(NOTE_ID_PREFIX.length);
    if (!this.byKey.has(keyOf(rel))) this.byKey.set(keyOf(rel), id);
    const base = keyOf(rel.slice(rel.lastIndexOf('/') + 1));
    const list = this.byBase.get(base);
    if (list) list.push(id); else this.byBase.set(base, [id]);
  }

  private rebuildIndex(): void {
    this.byKey = new Map();
    this.byBase = new Map();
    for (const id of this.raw.keys()) this.indexAdd(id);
  }

  /** Resolves a link target as written, from the note `fromId` (for the same-folder preference). */
  resolve(target: string, fromId?: string): { id?: string; candidates: string[] } {
    const t = normalizeTarget(target);
    if (!t) return { candidates: [] };
    const exact = this.byKey.get(t);
    if (exact) return { id: exact, candidates: [exact] };
    const base = t.slice(t.lastIndexOf('/') + 1);
    let cands = this.byBase.get(base) ?? [];
    if (t.includes('/')) cands = cands.filter((id) => keyOf(id.slice(NOTE_ID_PREFIX.length)).endsWith('/' + t));
    if (cands.length === 0) return { candidates: [] };
    if (cands.length === 1) return { id: cands[0], candidates: cands };
    const fromDir = fromId ? dirOf(fromId.slice(NOTE_ID_PREFIX.length)) : undefined;
    const sorted = [...cands].sort((a, b) => {
      const ra = a.slice(NOTE_ID_PREFIX.length), rb = b.slice(NOTE_ID_PREFIX.length);
      const sa = fromDir !== undefined && dirOf(ra) === fromDir ? 0 : 1;
      const sb = fromDir !== undefined && dirOf(rb) === fromDir ? 0 : 1;
      if (sa !== sb) return sa - sb;
      const da = ra.split('/').length, db = rb.split('/').length;
      if (da !== db) return da - db;
      return ra < rb ? -1 : ra > rb ? 1 : 0;
    });
    return { id: sorted[0], candidates: sorted };
  }

  private compute() {
    if (this.resolved) return this.resolved;
    const out = new Map<string, string[]>();
    const back = new Map<string, string[]>();
    const broken: BrokenLink[] = [];
    const ambiguous: AmbiguousLink[] = [];
    for (const from of [...this.raw.keys()].sort()) {
      const targets: string[] = [];
      for (const target of this.raw.get(from) ?? []) {
        const r = this.resolve(target, from);
        if (!r.id) { broken.push({ from, target }); continue; }
        if (r.candidates.length > 1) ambiguous.push({ from, target, chosen: r.id, candidates: r.candidates });
        if (!targets.includes(r.id)) targets.push(r.id);
      }
      out.set(from, targets);
      for (const to of targets) {
        const list = back.get(to);
        if (list) list.push(from); else back.set(to, [from]);
      }
    }
    this.resolved = { out, back, broken, ambiguous };
    return this.resolved;
  }

  /** Resolved targets of a note, unique, in link order. */
  outgoing(id: string): string[] { return [...(this.compute().out.get(id) ?? [])]; }
  /** Notes that link to `id`, sorted by id. A self-link counts. */
  backlinks(id: string): string[] { return [...(this.compute().back.get(id) ?? [])]; }
  broken(): BrokenLink[] { return [...this.compute().broken]; }
  ambiguous(): AmbiguousLink[] { return [...this.compute().ambiguous]; }
}

// Wikilink resolution and the backlinks index over vault note ids (`vt:<rel path>`).
// Resolution is Obsidian-like: exact path (with or without .md), then path suffix, then basename,
// all case-insensitive; ties go to the source's own folder, then the shortest path, then path order,
// and are reported as ambiguous. Links are stored raw and re-resolved lazily after any change, so a
// note added later repairs links that were broken before.
import { NOTE_ID_PREFIX } from './vaultLayout';

export interface BrokenLink { from: string; target: string }
export interface AmbiguousLink { from: string; target: string; chosen: string; candidates: string[] }

type LinkInput = string | { target: string };

// keyOf and normalizeTarget run for every note and link when the graph loads (10k notes, ~20k links at
// activation): plain string operations, regexes only for the rare target that needs cleaning.
function keyOf(relPath: string): string {
  const k = relPath.toLowerCase();
  return k.endsWith('.md') ? k.slice(0, -3) : k;
}

/** Written targets that need trimming, backslashes turned round or a leading ./ or / removed. */
const NEEDS_CLEANING = /^[\s./]|\s$|\\/;

function normalizeTarget(t: string): string {
  const s = NEEDS_CLEANING.test(t) ? t.trim().replace(/\\/g, '/').replace(/^\.\//, '').replace(/^\/+/, '') : t;
  return keyOf(s);
}

/** Basename key of a note's rel path (lowercase, no .md). */
function baseOfRel(rel: string): string {
  return keyOf(rel.slice(rel.lastIndexOf('/') + 1));
}

/** Basename key of a written target, as `resolve` looks it up. */
function targetBase(target: string): string {
  const t = normalizeTarget(target);
  return t.slice(t.lastIndexOf('/') + 1);
}

function dirOf(rel: string): string {
  const i = rel.lastIndexOf('/');
  return i < 0 ? '' : rel.slice(0, i).toLowerCase();
}

export class LinkGraph {
  private readonly raw = new Map<string, string[]>();
  private readonly byKey = new Map<string, string>();
  private readonly byBase = new Map<string, string[]>();
  /** Basename key of a written target → notes with such a target: which links a note's arrival or departure can re-resolve. */
  private readonly byTargetBase = new Map<string, string[]>();
  private resolved: { out: Map<string, string[]>; back: Map<string, string[]>; broken: BrokenLink[]; ambiguous: AmbiguousLink[] } | null = null;

  /** Sets (or replaces) a note's outgoing links. */
  setNote(id: string, links: LinkInput[]): void {
    const targets = links.map((l) => (typeof l === 'string' ? l : l.target)).filter((t) => typeof t === 'string' && t.trim() !== '');
    const before = this.raw.get(id);
    if (before) this.targetsRemove(id, before);
    this.raw.set(id, targets);
    if (!before) this.indexAdd(id);
    this.targetsAdd(id, targets);
    this.resolved = null;
  }

  removeNote(id: string): void {
    const before = this.raw.get(id);
    if (!before) return;
    this.raw.delete(id);
    this.targetsRemove(id, before);
    this.indexRemove(id);
    this.resolved = null;
  }

  has(id: string): boolean { return this.raw.has(id); }
  /** Number of notes in the graph. */
  get size(): number { return this.raw.size; }
  noteIds(): string[] { return [...this.raw.keys()].sort(); }
  /** A note's link targets as written (empty for an unknown note). */
  targets(id: string): string[] { return [...(this.raw.get(id) ?? [])]; }

  /**
   * Links (as written) whose resolution may differ once the notes `ids` arrived or left: those whose target's
   * basename is one of theirs (exact, suffix and basename matches all end in the basename). Sorted by source.
   */
  linksNear(ids: Iterable<string>): { from: string; target: string }[] {
    const bases = new Set<string>();
    for (const id of ids) bases.add(baseOfRel(id.slice(NOTE_ID_PREFIX.length)));
    const froms = new Set<string>();
    for (const b of bases) for (const f of this.byTargetBase.get(b) ?? []) froms.add(f);
    const out: { from: string; target: string }[] = [];
    for (const from of [...froms].sort()) {
      for (const target of new Set(this.raw.get(from) ?? [])) if (bases.has(targetBase(target))) out.push({ from, target });
    }
    return out;
  }

  // Lists, not Sets: most bases have one or two sources, and a Set each costs more than the graph itself.
  private targetsAdd(id: string, targets: readonly string[]): void {
    for (const t of targets) {
      const b = targetBase(t);
      const list = this.byTargetBase.get(b);
      if (!list) this.byTargetBase.set(b, [id]);
      // One note's targets are added together (setNote removes its old ones first): a repeat sits at the end.
      else if (list[list.length - 1] !== id) list.push(id);
    }
  }

  private targetsRemove(id: string, targets: readonly string[]): void {
    for (const t of targets) {
      const b = targetBase(t);
      const list = this.byTargetBase.get(b);
      if (!list) continue;
      const i = list.indexOf(id);
      if (i >= 0) list.splice(i, 1);
      if (list.length === 0) this.byTargetBase.delete(b);
    }
  }

  private indexAdd(id: string): void {
    const rel = id.slice(NOTE_ID_PREFIX.length);
    if (!this.byKey.has(keyOf(rel))) this.byKey.set(keyOf(rel), id);
    const base = keyOf(rel.slice(rel.lastIndexOf('/') + 1));
    const list = this.byBase.get(base);
    if (list) list.push(id); else this.byBase.set(base, [id]);
  }

  /** Undoes indexAdd in O(notes sharing the basename), not O(all notes): removing many notes stays linear. */
  private indexRemove(id: string): void {
    const rel = id.slice(NOTE_ID_PREFIX.length);
    const key = keyOf(rel);
    const base = keyOf(rel.slice(rel.lastIndexOf('/') + 1));
    const list = (this.byBase.get(base) ?? []).filter((x) => x !== id);
    if (list.length) this.byBase.set(base, list); else this.byBase.delete(base);
    if (this.byKey.get(key) !== id) return;
    // Another note differing only in case takes the key over: the first one in insertion order, as a full re-index would pick.
    const next = list.find((x) => keyOf(x.slice(NOTE_ID_PREFIX.length)) === key);
    if (next) this.byKey.set(key, next); else this.byKey.delete(key);
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

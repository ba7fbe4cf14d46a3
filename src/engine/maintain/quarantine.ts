// Provider quarantine (SPEC R-QUAR-1..3): hides what a provider (model vendor) wrote — its replies, tool
// output and reasoning rows, every fact or summary derived from them, and the capture notes of the affected
// conversations (moved to `.quarantine/<id>/`) — and releases it again exactly as it was.
// Invariants: nothing is deleted and the transcript (logs/) is never touched; the user's own messages are
// never selected; rows the poison gate quarantined are never selected, so no release un-quarantines them;
// a row (or note) held by several active quarantines stays hidden until the last of them is released
// (a later quarantine copies the earlier one's remembered trust, so the last release restores the original).
import { MemoryError } from '../errors';
import type { Clock, Logger } from '../host';
import { newRowId, type Item, type Quarantine, type QuarantineRow } from '../store/repositories';
import type { Store } from '../store/store';
import type { Trust } from '../types';
import { quarantineNote, restoreNote } from '../vault/noteWriter';
import type { VaultIndex } from '../vault/vaultIndex';
import { localDay, quarantineDir } from '../vault/vaultLayout';

/** What to quarantine: providers (as stamped on each row), optionally whole local days `from`..`to` inclusive. */
export interface QuarantineSelection {
  providers: string[];
  /** First local day, `YYYY-MM-DD`, inclusive; absent = no lower bound. */
  from?: string;
  /** Last local day, `YYYY-MM-DD`, inclusive; absent = no upper bound. */
  to?: string;
  /** IANA zone the days are read in; default the engine clock's zone. */
  timeZone?: string;
}

export interface QuarantineCounts {
  /** Raw rows (replies, tool output, reasoning) newly hidden. */
  raw: number;
  facts: number;
  summaries: number;
  /** Capture notes moved to `.quarantine/<id>/`. */
  notes: number;
  /** Conversations those rows and notes belong to. */
  conversations: number;
}

export interface QuarantinePreview {
  counts: QuarantineCounts;
  /** Rows already hidden by another active quarantine that this one would also hold (no change now). */
  alreadyHeld: number;
  /** The range as epoch ms: [from, to) — null = unbounded. */
  range: { from: number | null; to: number | null };
}

export interface QuarantineApplyResult {
  /** null when nothing was left to quarantine (a repeat). */
  id: string | null;
  counts: QuarantineCounts;
  message?: 'nothing left to quarantine';
  /** Capture notes that could not be moved (gone from disk meanwhile): vault-relative paths. */
  notesNotMoved: string[];
}

export interface QuarantineReleaseResult {
  id: string;
  /** Rows whose trust was set back to what it was before. */
  restoredRows: number;
  /** Notes moved back, with where they landed (`<name>-restored.md` when the path was taken meanwhile). */
  restoredNotes: { from: string; to: string }[];
  /** Notes deleted by hand from `.quarantine/`: their original vault-relative paths. */
  missingNotes: string[];
  /** Rows and notes still held by another active quarantine (they stay hidden). */
  keptByOther: number;
  /** Rows rebuilt or deleted since the quarantine (left as they are now). */
  changedMeanwhile: number;
}

export interface QuarantineEntry {
  id: string;
  created: number;
  providers: string[];
  from: string | null;
  to: string | null;
  status: 'active' | 'released';
  releasedAt: number | null;
  counts: QuarantineCounts;
}

export interface ProviderCount {
  provider: string;
  /** Rows of this provider that recall can still return. */
  recallable: number;
  /** All rows of this provider (hidden ones included). */
  total: number;
}

export interface QuarantineDeps {
  store: Store;
  vault: VaultIndex;
  vaultDir: string;
  clock: Clock;
  logger: Logger;
  /** Re-derives a conversation's summary (a summary rebuilt during the quarantine misses the released rows). */
  resummarize?: (conversation: string) => Promise<void>;
}

/** Roles a provider writes; 'user' is never selected (R-QUAR-1). */
const PROVIDER_ROLES = new Set(['assistant', 'tool', 'thinking']);
const DAY_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
// Bounds on input so a bad call is refused, not run: 50 providers × 200 chars is far beyond any real list.
const MAX_PROVIDERS = 50;
const MAX_PROVIDER_CHARS = 200;
const ACTOR = 'user';

interface PlannedRow { itemId: string; prevTrust: Trust; kind: 'raw' | 'fact' | 'summary'; conversation: string | null; fresh: boolean }
interface PlannedNote { itemId: string; path: string; prevTrust: Trust; conversation: string; fresh: boolean; heldAt?: string }
interface Plan {
  sel: Required<Pick<QuarantineSelection, 'providers'>> & { from: string | null; to: string | null; timeZone: string };
  range: { from: number | null; to: number | null };
  rows: PlannedRow[];
  notes: PlannedNote[];
  counts: QuarantineCounts;
}

export class ProviderQuarantine {
  // Apply and release run one at a time in this process (each reads, moves files, then writes).
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: QuarantineDeps) {}

  /** Counts what `apply` would hide now; changes nothing. */
  preview(selection: QuarantineSelection): QuarantinePreview {
    const plan = this.plan(selection);
    return { counts: plan.counts, alreadyHeld: plan.rows.filter((r) => !r.fresh).length + plan.notes.filter((n) => !n.fresh).length, range: plan.range };
  }

  /** Hides the selection; returns the new id and counts, or id null when nothing is left to quarantine. */
  apply(selection: QuarantineSelection): Promise<QuarantineApplyResult> {
    return this.serial(() => this.applyNow(selection));
  }

  /** Restores exactly the trust rows had before and moves the notes back (E_NOT_FOUND / E_REFUSED "already released"). */
  release(id: string): Promise<QuarantineReleaseResult> {
    return this.serial(() => this.releaseNow(id));
  }

  /** Every provider that wrote rows, with how many are still recallable (the multi-select's list). */
  providers(): ProviderCount[] {
    return this.deps.store.items.providerCounts();
  }

  /** Every quarantine, newest first (the Release… list). */
  history(): QuarantineEntry[] {
    return this.deps.store.quarantines.list().reverse().map(toEntry);
  }

  // ------------------------------------------------------------------ planning

  private plan(selection: QuarantineSelection): Plan {
    const sel = validateSelection(selection, this.deps.clock.timeZone());
    const range = {
      from: sel.from ? startOfLocalDay(sel.from, sel.timeZone) : null,
      to: sel.to ? startOfLocalDay(nextDay(sel.to), sel.timeZone) : null,
    };
    const { store } = this.deps;
    const holders = new ActiveHolders(store);

    // 1. The provider's own rows: by the provider stamped on each row; rows without one use the
    //    provider the conversation is pinned to (conversations.meta.provider), when there is one.
    const raws = new Map<string, Item>();
    const inRange = (it: Item) => (range.from === null || it.created >= range.from) && (range.to === null || it.created < range.to);
    for (const p of sel.providers) {
      for (const it of store.items.list({ kind: 'raw', provider: p, since: range.from ?? undefined, until: range.to ?? undefined })) {
        if (PROVIDER_ROLES.has(it.role ?? '')) raws.set(it.id, it);
      }
    }
    const wanted = new Set(sel.providers);
    for (const c of store.conversations.list()) {
      const pinned = c.meta?.provider;
      if (typeof pinned !== 'string' || !wanted.has(pinned)) continue;
      for (const it of store.items.list({ kind: 'raw', conversation: c.id })) {
        if (it.provider === null && PROVIDER_ROLES.has(it.role ?? '') && inRange(it)) raws.set(it.id, it);
      }
    }

    const rows: PlannedRow[] = [];
    const picked = new Set<string>();
    const take = (it: Item, kind: PlannedRow['kind']): boolean => {
      if (picked.has(it.id)) return false;
      const held = holders.prevTrustOf(it.id);
      if (it.trust === 'quarantined' && held === undefined) return false; // the poison gate's: never ours
      picked.add(it.id);
      rows.push({ itemId: it.id, kind, conversation: it.conversation, fresh: it.trust !== 'quarantined', prevTrust: it.trust === 'quarantined' ? held! : it.trust });
      return true;
    };
    const conversations = new Set<string>();
    const selectedRaw: Item[] = [];
    for (const it of [...raws.values()].sort((a, b) => a.created - b.created || (a.id < b.id ? -1 : 1))) {
      if (take(it, 'raw')) {
        selectedRaw.push(it);
        if (it.conversation) conversations.add(it.conversation);
      }
    }

    // 2. Facts and summaries with at least one selected source (a summary that also covers the user's messages too).
    const derivedIds = new Set<string>();
    for (const it of selectedRaw) for (const d of store.itemSources.derivedFrom(it.id)) derivedIds.add(d);
    for (const d of store.items.getMany([...derivedIds].sort())) {
      if (d.kind === 'fact' || d.kind === 'summary') take(d, d.kind);
    }

    // 3. Capture notes of the affected conversations: those in the vault move; those another active
    //    quarantine already moved are held too (so either release alone keeps them hidden).
    const notes: PlannedNote[] = [];
    for (const conv of [...conversations].sort()) {
      for (const n of store.items.list({ kind: 'note', conversation: conv, order: 'id' })) {
        if (n.entryPath !== 'capture' || !n.path || !n.id.startsWith('vt:')) continue; // a project note is the repository's file
        notes.push({ itemId: n.id, path: n.path, prevTrust: n.trust, conversation: conv, fresh: true });
      }
    }
    for (const h of holders.heldNotes()) {
      if (!conversations.has(h.conversation) || notes.some((n) => n.itemId === h.itemId)) continue;
      notes.push({ itemId: h.itemId, path: h.noteFrom, prevTrust: h.prevTrust, conversation: h.conversation, fresh: false, heldAt: h.noteTo });
    }

    const freshRows = rows.filter((r) => r.fresh);
    const freshNotes = notes.filter((n) => n.fresh);
    const touched = new Set<string>();
    for (const r of freshRows) if (r.conversation) touched.add(r.conversation);
    for (const n of freshNotes) touched.add(n.conversation);
    const counts: QuarantineCounts = {
      raw: freshRows.filter((r) => r.kind === 'raw').length,
      facts: freshRows.filter((r) => r.kind === 'fact').length,
      summaries: freshRows.filter((r) => r.kind === 'summary').length,
      notes: freshNotes.length,
      conversations: touched.size,
    };
    return { sel, range, rows, notes, counts };
  }

  // ------------------------------------------------------------------ apply

  private async applyNow(selection: QuarantineSelection): Promise<QuarantineApplyResult> {
    const { store, clock, logger } = this.deps;
    const plan = this.plan(selection);
    const now = clock.now();
    const nothing = plan.counts.raw + plan.counts.facts + plan.counts.summaries + plan.counts.notes === 0;
    if (nothing) {
      await store.transaction((tx) => tx.audit.add({
        at: now, action: 'memory.quarantine.apply', actor: ACTOR,
        detail: { module: 'memory', result: 'nothing_left', providers: plan.sel.providers, from: plan.sel.from, to: plan.sel.to },
      }));
      logger.info('quarantine.apply', { result: 'nothing_left', providers: plan.sel.providers.length });
      return { id: null, counts: plan.counts, message: 'nothing left to quarantine', notesNotMoved: [] };
    }
    const id = newRowId(now);
    const detail = {
      providers: plan.sel.providers, from: plan.sel.from, to: plan.sel.to, timeZone: plan.sel.timeZone,
      // Which conversation each held note belongs to: a later overlapping quarantine holds them too.
      noteConversations: Object.fromEntries(plan.notes.map((n) => [n.itemId, n.conversation])),
    };
    const record: Quarantine = {
      id, created: now, provider: plan.sel.providers.join(', '), model: null, rangeFrom: plan.range.from, rangeTo: plan.range.to,
      reason: 'provider', status: 'active', releasedAt: null, counts: { ...plan.counts }, detail,
    };
    // Rows and the planned note targets first (one record): a crash after it leaves a quarantine that
    // release can undo; notes not yet moved then come back as "missing" from .quarantine.
    const noteRow = (n: PlannedNote, to: string | null): QuarantineRow => ({ quarantineId: id, itemId: n.itemId, prevTrust: n.prevTrust, noteFrom: n.path, noteTo: to });
    await store.transaction((tx) => {
      tx.quarantines.put(record);
      tx.quarantines.addRows(plan.rows.map((r) => ({ quarantineId: id, itemId: r.itemId, prevTrust: r.prevTrust, noteFrom: null, noteTo: null })));
      tx.quarantines.addRows(plan.notes.map((n) => noteRow(n, n.fresh ? `${quarantineDir(id)}/${n.path}` : n.heldAt ?? null)));
      for (const r of plan.rows) if (r.fresh) tx.items.patch(r.itemId, { trust: 'quarantined' });
    });

    const moved: { from: string; to: string }[] = [];
    const notMoved: string[] = [];
    const corrections: QuarantineRow[] = [];
    for (const n of plan.notes.filter((x) => x.fresh)) {
      try {
        const r = await quarantineNote(this.deps.vaultDir, n.path, id);
        moved.push({ from: n.path, to: r.relPath });
        if (r.relPath !== `${quarantineDir(id)}/${n.path}`) corrections.push(noteRow(n, r.relPath));
      } catch (e) {
        if (!(e instanceof MemoryError && e.code === 'E_NOT_FOUND')) throw e;
        notMoved.push(n.path);
        corrections.push(noteRow(n, null));
      }
      // The old path no longer holds a note: its row leaves the store (and the recall index).
      await this.deps.vault.syncFile(n.path);
    }

    const counts: QuarantineCounts = { ...plan.counts, notes: moved.length };
    const byTrust: Record<string, string[]> = {};
    for (const r of plan.rows) if (r.fresh) (byTrust[r.prevTrust] ??= []).push(r.itemId);
    await store.transaction((tx) => {
      if (corrections.length) tx.quarantines.addRows(corrections);
      tx.quarantines.put({ ...record, counts: { ...counts } });
      tx.purgeLog.add({
        at: now, action: 'quarantine.apply', ref: id,
        record: {
          providers: plan.sel.providers, from: plan.sel.from, to: plan.sel.to, range: plan.range,
          rowsByPrevTrust: byTrust, alsoHeld: plan.rows.filter((r) => !r.fresh).map((r) => r.itemId),
          notesMoved: moved, notesNotMoved: notMoved, notesAlsoHeld: plan.notes.filter((n) => !n.fresh).map((n) => n.itemId),
        },
      });
      tx.audit.add({
        at: now, action: 'memory.quarantine.apply', actor: ACTOR,
        detail: { module: 'memory', id, providers: plan.sel.providers, from: plan.sel.from, to: plan.sel.to, counts },
      });
    });
    logger.info('quarantine.apply', { id, ...counts, alsoHeld: plan.rows.length - plan.rows.filter((r) => r.fresh).length, notesNotMoved: notMoved.length });
    return { id, counts, notesNotMoved: notMoved };
  }

  // ------------------------------------------------------------------ release

  private async releaseNow(id: string): Promise<QuarantineReleaseResult> {
    const { store, clock, logger } = this.deps;
    if (typeof id !== 'string' || !id.trim() || id.length > 100) throw new MemoryError('E_BAD_INPUT', 'a quarantine id is required');
    const q = store.quarantines.get(id.trim());
    if (!q) throw new MemoryError('E_NOT_FOUND', `no quarantine has the id ${id.trim()}`);
    if (q.status === 'released') throw new MemoryError('E_REFUSED', `quarantine ${q.id} is already released`);
    const holders = new ActiveHolders(store, q.id);
    const rows = store.quarantines.rows(q.id);
    const res: QuarantineReleaseResult = { id: q.id, restoredRows: 0, restoredNotes: [], missingNotes: [], keptByOther: 0, changedMeanwhile: 0 };

    // Notes first: a crash after this leaves the quarantine active, and a second release reports the
    // already-restored notes as missing and still restores every row.
    for (const r of rows.filter((x) => x.noteFrom !== null)) {
      if (holders.holds(r.itemId)) { res.keptByOther++; continue; }
      if (!r.noteTo) { res.missingNotes.push(r.noteFrom!); continue; }
      try {
        const back = await restoreNote(this.deps.vaultDir, r.noteTo);
        await this.deps.vault.syncFile(back.relPath);
        res.restoredNotes.push({ from: r.noteTo, to: back.relPath });
      } catch (e) {
        if (!(e instanceof MemoryError && e.code === 'E_NOT_FOUND')) throw e;
        res.missingNotes.push(r.noteFrom!);
      }
    }

    const patches: { itemId: string; trust: Trust }[] = [];
    const rebuilt = new Set<string>();
    const current = new Map(store.items.getMany(rows.filter((r) => r.noteFrom === null).map((r) => r.itemId)).map((it) => [it.id, it]));
    for (const r of rows.filter((x) => x.noteFrom === null)) {
      if (holders.holds(r.itemId)) { res.keptByOther++; continue; }
      const it = current.get(r.itemId);
      // Rebuilt since (a conversation summary re-derived without the hidden rows) or deleted: left as it is.
      if (!it || it.trust !== 'quarantined' || !r.prevTrust) {
        res.changedMeanwhile++;
        if (it?.kind === 'summary' && it.conversation) rebuilt.add(it.conversation);
        continue;
      }
      patches.push({ itemId: r.itemId, trust: r.prevTrust });
    }
    res.restoredRows = patches.length;
    const now = clock.now();
    const byTrust: Record<string, string[]> = {};
    for (const p of patches) (byTrust[p.trust] ??= []).push(p.itemId);
    await store.transaction((tx) => {
      for (const p of patches) tx.items.patch(p.itemId, { trust: p.trust });
      tx.quarantines.markReleased(q.id, now);
      tx.purgeLog.add({
        at: now, action: 'quarantine.release', ref: q.id,
        record: { rowsByRestoredTrust: byTrust, notesRestored: res.restoredNotes, notesMissing: res.missingNotes, keptByOther: res.keptByOther, changedMeanwhile: res.changedMeanwhile },
      });
      tx.audit.add({
        at: now, action: 'memory.quarantine.release', actor: ACTOR,
        detail: { module: 'memory', id: q.id, rows: res.restoredRows, notes: res.restoredNotes.length, missing: res.missingNotes.length, keptByOther: res.keptByOther },
      });
    });
    // A summary rebuilt during the quarantine left the hidden rows out: derive it again now they are back.
    for (const conv of rebuilt) await this.deps.resummarize?.(conv);
    logger.info('quarantine.release', { id: q.id, rows: res.restoredRows, notes: res.restoredNotes.length, missing: res.missingNotes.length, keptByOther: res.keptByOther, changedMeanwhile: res.changedMeanwhile });
    return res;
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

/** Rows and notes held by active quarantines (optionally other than `except`), read once. */
class ActiveHolders {
  private readonly rows = new Map<string, { prevTrust: Trust | null; noteFrom: string | null; noteTo: string | null; conversation: string | null }>();

  constructor(store: Store, except?: string) {
    for (const q of store.quarantines.list()) {
      if (q.status !== 'active' || q.id === except) continue;
      const convOf = (q.detail?.noteConversations ?? {}) as Record<string, unknown>;
      for (const r of store.quarantines.rows(q.id)) {
        // The earliest holder's remembered trust is the original one (later holders copied it).
        if (this.rows.has(r.itemId)) continue;
        const c = convOf[r.itemId];
        this.rows.set(r.itemId, { prevTrust: r.prevTrust, noteFrom: r.noteFrom, noteTo: r.noteTo, conversation: typeof c === 'string' ? c : null });
      }
    }
  }

  holds(itemId: string): boolean { return this.rows.has(itemId); }

  prevTrustOf(itemId: string): Trust | undefined {
    const r = this.rows.get(itemId);
    return r ? (r.prevTrust ?? 'derived') : undefined;
  }

  heldNotes(): { itemId: string; noteFrom: string; noteTo: string | undefined; prevTrust: Trust; conversation: string }[] {
    const out = [];
    for (const [itemId, r] of this.rows) {
      if (r.noteFrom && r.conversation) out.push({ itemId, noteFrom: r.noteFrom, noteTo: r.noteTo ?? undefined, prevTrust: r.prevTrust ?? 'derived', conversation: r.conversation });
    }
    return out;
  }
}

function toEntry(q: Quarantine): QuarantineEntry {
  const d = q.detail ?? {};
  const providers = Array.isArray(d.providers) ? (d.providers as unknown[]).filter((p): p is string => typeof p === 'string') : (q.provider ? q.provider.split(', ') : []);
  const c = q.counts ?? {};
  return {
    id: q.id, created: q.created, providers, from: typeof d.from === 'string' ? d.from : null, to: typeof d.to === 'string' ? d.to : null,
    status: q.status, releasedAt: q.releasedAt,
    counts: { raw: c.raw ?? 0, facts: c.facts ?? 0, summaries: c.summaries ?? 0, notes: c.notes ?? 0, conversations: c.conversations ?? 0 },
  };
}

/** Checks and normalises a selection; every problem is E_BAD_INPUT with a message naming the field. */
export function validateSelection(s: QuarantineSelection, defaultZone: string): Plan['sel'] {
  if (!s || typeof s !== 'object') throw new MemoryError('E_BAD_INPUT', 'a quarantine needs a selection: {providers, from?, to?}');
  if (!Array.isArray(s.providers) || s.providers.length === 0) throw new MemoryError('E_BAD_INPUT', 'choose at least one provider');
  if (s.providers.length > MAX_PROVIDERS) throw new MemoryError('E_BAD_INPUT', `at most ${MAX_PROVIDERS} providers at once`);
  const providers: string[] = [];
  for (const p of s.providers) {
    if (typeof p !== 'string' || !p.trim() || p.length > MAX_PROVIDER_CHARS) throw new MemoryError('E_BAD_INPUT', 'each provider must be a non-empty name of at most 200 characters');
    if (!providers.includes(p.trim())) providers.push(p.trim());
  }
  const timeZone = s.timeZone ?? defaultZone;
  if (typeof timeZone !== 'string') throw new MemoryError('E_BAD_INPUT', 'timeZone must be an IANA zone name');
  localDay(0, timeZone); // E_BAD_INPUT 'unknown time zone'
  const day = (name: 'from' | 'to'): string | null => {
    const v = s[name];
    if (v === undefined || v === null || v === '') return null;
    if (typeof v !== 'string' || !isDay(v)) throw new MemoryError('E_BAD_INPUT', `${name} must be a day written YYYY-MM-DD`);
    return v;
  };
  const from = day('from');
  const to = day('to');
  if (from && to && from > to) throw new MemoryError('E_BAD_INPUT', 'from must not be after to');
  return { providers: providers.sort(), from, to, timeZone };
}

/** True for a real calendar day written `YYYY-MM-DD`. */
export function isDay(v: string): boolean {
  const m = DAY_RE.exec(v);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

function nextDay(day: string): string {
  const m = DAY_RE.exec(day)!;
  return new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + 1)).toISOString().slice(0, 10);
}

/** Offset of `timeZone` from UTC at instant `at`, in ms (local = UTC + offset). */
function zoneOffset(at: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
  }).formatToParts(new Date(at));
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? 0);
  const local = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return local - Math.floor(at / 1000) * 1000;
}

/** The first instant (epoch ms) of local day `day` in `timeZone`. */
export function startOfLocalDay(day: string, timeZone: string): number {
  const m = DAY_RE.exec(day)!;
  const utcMidnight = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  let t = utcMidnight - zoneOffset(utcMidnight, timeZone);
  t = utcMidnight - zoneOffset(t, timeZone);
  // A zone whose clocks skip midnight (DST at 00:00): the day starts at the first instant that is on it.
  if (localDay(t, timeZone) !== day) t += 60 * 60_000;
  return t;
}

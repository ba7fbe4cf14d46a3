// The writes of a flush's derivation (R-MEM-6), from its analysis (flushAnalysis.ts) and the rows they change:
// facts resolved against the scope's current facts (same / supersedes / new), and entities — one row per (type,
// normalised value, scope), a mention adds a source; a known entity changes in place.
import { createHash } from 'node:crypto';
import type { Logger } from '../host';
import type { Item, ItemInput, ItemPatch } from '../store/repositories';
import { newRowId } from '../store/repositories';
import type { Store, Tx } from '../store/store';
import { leastTrusted } from '../types';
import { deriveLabel, findCurrentFact, resolveFact, type Entity, type ExtractedFact, type SourceLabel } from './derive';
import type { GateResult } from './poisonGate';

/** What a flush reads of each message (15 of the items row's 40 columns; TurnWriter.readFlush). */
export const FLUSH_SOURCE_PROPS = ['id', 'kind', 'conversation', 'role', 'trust', 'secret', 'untrusted', 'project', 'projectType',
  'created', 'text', 'blobHash', 'provider', 'model', 'entryPath'] as const;
export type FlushSource = Pick<Item, (typeof FLUSH_SOURCE_PROPS)[number]>;
/** What a flush reads of an entity it mentions. */
const ENTITY_PROPS = ['id', 'text', 'trust', 'projectType', 'archivedAt', 'meta'] as const;

/** An op writes its rows and hands its (item, source) pairs to `sources`: the flush writes them all at its end, 200 to a statement. */
export type SourcePairs = [itemId: string, sourceId: string][];
type Ops = ((tx: Tx, sources: SourcePairs) => void)[];

/**
 * The writes for the facts of `sources` (`found[k]`: the facts of `sources[k]` with the gate's verdict on each;
 * rejected ones are dropped and logged). The scope's current facts are read once and grouped by subject key, so
 * resolving a flush's facts costs one map look-up each (a flush may hold hundreds of `key: value` lines).
 */
export function factOpsOf(
  store: Store, logger: Logger, conversation: string, project: string | null, sources: readonly FlushSource[],
  found: readonly { fact: ExtractedFact; verdict: GateResult }[][],
): { ops: Ops; facts: number; superseded: number } {
  const ops: Ops = [];
  let facts = 0, superseded = 0;
  if (found.every((f) => f.length === 0)) return { ops, facts, superseded }; // most flushes state no fact: nothing to read
  const current = new Map<string, Item[]>();
  const scopeKey = (projectLabel: string | null, key: string) => `${projectLabel ?? ''}\u0000${key}`;
  store.items.forEach({ kind: 'fact', project, recallable: true }, (x) => {
    const key = scopeKey(x.project, x.subkind ?? '');
    const list = current.get(key);
    if (list) list.push(x);
    else current.set(key, [x]);
  });
  for (const [k, src] of sources.entries()) {
    for (const { fact: f, verdict } of found[k]!) {
      if (verdict.verdict === 'reject') {
        logger.warn('gate.reject', { kind: 'fact', source: src.id, detector: verdict.detector ?? '' });
        continue;
      }
      const label = deriveLabel([src]);
      const key = scopeKey(label.project, f.key);
      const same = current.get(key) ?? [];
      const stored = same.map((x) => ({ id: x.id, subject: String(x.meta.subject ?? x.subkind ?? ''), value: String(x.meta.value ?? ''), validFrom: x.validFrom ?? x.created }));
      const resolution = resolveFact(stored, f);
      if (resolution === 'same') {
        const cur = findCurrentFact(stored, f.subject)!;
        ops.push((_tx, pairs) => { pairs.push([cur.id, src.id]); });
        continue;
      }
      const id = `fa:${newRowId(src.created)}`;
      if (resolution === 'supersedes') {
        const cur = findCurrentFact(stored, f.subject)!;
        const old = same.find((x) => x.id === cur.id);
        ops.push((tx) => tx.items.patch(cur.id, { invalidatedAt: src.created, meta: { ...(old?.meta ?? {}), supersededBy: id } }));
        if (old) same.splice(same.indexOf(old), 1);
        superseded++;
      }
      const fact: ItemInput = {
        id, kind: 'fact', subkind: f.key, text: `${f.subject}: ${f.value}`, trust: label.trust, secret: label.secret,
        untrusted: verdict.verdict === 'untrusted' || src.untrusted, project: label.project,
        projectType: label.project ? null : (src.projectType ?? null), conversation, created: src.created,
        validFrom: src.created, provider: src.provider, model: src.model, entryPath: src.entryPath, role: null,
        importance: 0.5, sourceType: 'derivation', meta: { subject: f.subject, value: f.value },
      };
      same.push({ ...(fact as Item), meta: fact.meta ?? {} });
      current.set(key, same);
      ops.push((tx, pairs) => { tx.items.put(fact); pairs.push([id, src.id]); });
      facts++;
    }
  }
  return { ops, facts, superseded };
}

/**
 * The writes for the entities `sources` mention (messages derivation may read; `found[k]`: the entities of
 * `sources[k]`, extractEntities' answer), and how many entities they touch.
 */
export function entityOpsOf(store: Store, sources: readonly FlushSource[], found: readonly Entity[][], now: number): { ops: Ops; entities: number } {
  const ops: Ops = [];
  const mentions: { src: FlushSource; e: Entity; label: SourceLabel; id: string }[] = [];
  for (const [k, src] of sources.entries()) {
    for (const e of found[k]!) {
      const label = deriveLabel([src]);
      const id = `en:${createHash('sha256').update(`${e.type}\u0000${e.norm}\u0000${label.project ?? ''}`).digest('hex').slice(0, 20)}`;
      mentions.push({ src, e, label, id });
    }
  }
  const stored = new Map(store.items.pick([...new Set(mentions.map((m) => m.id))], ENTITY_PROPS).map((it) => [it.id, it]));
  // Every message that mentions an entity in this flush, written as one statement per entity (the ops run later).
  const sourcesOf = new Map<string, string[]>();
  let entities = 0;
  for (const { src, e, label, id } of mentions) {
    const seen = sourcesOf.get(id);
    if (seen) { seen.push(src.id); continue; }
    const all = [src.id];
    sourcesOf.set(id, all);
    const prev = stored.get(id);
    const aliases = new Set<string>([...(Array.isArray(prev?.meta.aliases) ? (prev!.meta.aliases as string[]) : []), e.value]);
    const trust = prev ? leastTrusted([prev.trust, label.trust]) : label.trust;
    const projectType = label.project ? null : (src.projectType ?? null);
    const meta = { type: e.type, norm: e.norm, aliases: [...aliases].slice(0, 20), mentions: Number(prev?.meta.mentions ?? 0) + 1 };
    if (prev) {
      // Only what a mention changes is written (no row rewrite, so its pin, access counts and salience stay);
      // an archived entity is mentioned back into use.
      const fields: ItemPatch = { updated: now, meta };
      if (prev.archivedAt !== null) fields.archivedAt = null;
      if (prev.text !== e.value) { fields.text = e.value; fields.title = e.value; }
      if (prev.trust !== trust) fields.trust = trust;
      if (prev.projectType !== projectType) fields.projectType = projectType;
      ops.push((tx, pairs) => { tx.items.patch(id, fields); for (const s of all) pairs.push([id, s]); });
    } else {
      const item: ItemInput = {
        id, kind: 'entity', subkind: e.type, text: e.value, title: e.value, trust, secret: false, project: label.project, projectType,
        created: src.created, updated: now, role: null, importance: 0.3, sourceType: 'derivation', meta,
      };
      ops.push((tx, pairs) => { tx.items.put(item); for (const s of all) pairs.push([id, s]); });
    }
    entities++;
  }
  return { ops, entities };
}

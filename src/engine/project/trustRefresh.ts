// Keeps a project note's git-derived trust current when git changed but the file did not (a commit of an
// uncommitted note, a teammate's commit of identical bytes, a rewritten history, git becoming readable):
// the rows' `meta.{gitTrust, author, uncommitted}` and trust are patched from the current git facts, without
// re-reading unchanged clean files (only rows last seen uncommitted are hashed again).
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Item } from '../store/repositories';
import type { Store } from '../store/store';
import { lowerTrust, TRUST_LEVELS, type Trust } from '../types';

export interface GitTrust { base: 'owner' | 'peer'; author?: string; uncommitted: boolean }

/** Patches the rows of `idPrefix` whose git trust changed; returns their ids. */
export async function refreshGitTrust(
  store: Store, idPrefix: string, dir: string, trustOf: (abs: string, bytes: Uint8Array | undefined) => GitTrust,
): Promise<string[]> {
  const patches: { id: string; trust: Trust; prevTrust: Trust | null; meta: Item['meta'] }[] = [];
  store.items.forEach({ kind: 'note' }, (it) => {
    if (!it.id.startsWith(idPrefix) || !it.path) return;
    const m = it.meta as Record<string, unknown>;
    const abs = path.join(dir, ...it.path.split('/'));
    let bytes: Uint8Array | undefined;
    if (m.uncommitted === true) {
      try { bytes = readFileSync(abs); } catch { return; } // gone: the next sync removes the row
    }
    const g = trustOf(abs, bytes);
    if (g.base === m.gitTrust && g.author === m.author && g.uncommitted === m.uncommitted) return;
    const fm = TRUST_LEVELS.includes(m.fmTrust as Trust) ? (m.fmTrust as Trust) : 'owner';
    const trust = lowerTrust(fm, g.base);
    patches.push({
      id: it.id, trust: m.flagged ? 'quarantined' : trust, prevTrust: m.flagged ? trust : null,
      meta: { ...it.meta, gitTrust: g.base, author: g.author, uncommitted: g.uncommitted },
    });
  });
  if (patches.length) {
    await store.transaction((tx) => { for (const p of patches) tx.items.patch(p.id, { trust: p.trust, prevTrust: p.prevTrust, meta: p.meta }); });
  }
  return patches.map((p) => p.id);
}

// The index facts the vault language server asks for (src/protocol/language.ts), built from store
// items. No `vscode` import, so it is unit-tested in plain Node.
// Invariant: text of a secret or quarantined item never leaves here (its summary is withheld).
import type { Item } from '../../engine/store/repositories';
import { isHiddenRelPath, noteId } from '../../engine/vault/vaultLayout';
import { SECRETS_TAG } from '../../engine/vault/noteParser';
import { DESCRIBE_SUMMARY_CHARS, type MemoryDescription, type NoteInfo, type WithheldReason } from '../../protocol/language';

function withheldOf(item: Item): WithheldReason | undefined {
  if (item.secret || item.tags.includes(SECRETS_TAG)) return 'secret';
  if (item.trust === 'quarantined' || (item.path !== null && isHiddenRelPath(item.path))) return 'quarantined';
  return undefined;
}

function short(s: string): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length <= DESCRIBE_SUMMARY_CHARS ? one : `${one.slice(0, DESCRIBE_SUMMARY_CHARS - 1)}…`;
}

/** The note list for `memory/notes`: indexed notes with a path, hidden folders left out, sorted by path. */
export function noteInfosOf(items: Iterable<Item>): NoteInfo[] {
  const out: NoteInfo[] = [];
  for (const it of items) {
    if (it.kind !== 'note' || !it.path || isHiddenRelPath(it.path)) continue;
    const base = it.path.slice(it.path.lastIndexOf('/') + 1);
    out.push({
      id: noteId(it.path), relPath: it.path, title: base.replace(/\.md$/i, ''),
      summary: withheldOf(it) ? '' : short(it.summary ?? it.title ?? ''),
    });
  }
  return out.sort((a, b) => (a.relPath < b.relPath ? -1 : a.relPath > b.relPath ? 1 : 0));
}

/** The `memory/describe` answer for one item; `textOf` reads a raw message's compressed text. */
export function describeItem(item: Item, textOf: (item: Item) => string): MemoryDescription {
  const withheld = withheldOf(item);
  const d: MemoryDescription = {
    id: item.id, kind: item.kind, trust: item.trust, created: new Date(item.created).toISOString(),
  };
  const subkind = item.subkind ?? item.role;
  if (subkind) d.subkind = subkind;
  if (withheld) { d.withheld = withheld; return d; }
  let text = item.summary ?? item.title ?? item.text ?? '';
  if (!text) {
    try { text = textOf(item); } catch { text = ''; }
  }
  const summary = short(text);
  if (summary) d.summary = summary;
  return d;
}

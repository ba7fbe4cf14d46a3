// Notes written straight to the vault without a model: `/remember` (pinned, owner trust) and the review
// queue's "promote now" (the item archived with `promotedTo`). Both go through the poison gate and
// masking; the caller embeds the new note.
import { MemoryError } from '../errors';
import type { Clock, Logger } from '../host';
import type { Item } from '../store/repositories';
import type { Store } from '../store/store';
import { NOTE_KINDS, type NoteKind } from '../types';
import { writeNote } from '../vault/noteWriter';
import type { VaultIndex } from '../vault/vaultIndex';
import { noteFileSlug, projectDir, VAULT_DIRS } from '../vault/vaultLayout';
import { gate } from './poisonGate';

export interface RememberInput {
  text: string;
  project?: string;
  kind?: NoteKind;
  at?: number;
}

export interface DirectNoteDeps {
  store: Store;
  vault: VaultIndex;
  vaultDir: string;
  clock: Clock;
  logger: Logger;
  /** An item's text (a raw message's comes from the compressed record). */
  textOf(item: Item): string;
}

/** Pinned, owner-trust note written to the vault (R-UI-1 `/remember`); bypasses the save filter. */
export async function rememberNote(d: DirectNoteDeps, input: RememberInput): Promise<{ id: string; path: string }> {
  const text = typeof input?.text === 'string' ? input.text.trim() : '';
  if (!text) throw new MemoryError('E_BAD_INPUT', 'nothing to remember: the text is empty');
  if (text.length > 20_000) throw new MemoryError('E_TOO_LARGE', 'a remembered note is limited to 20,000 characters');
  const kind = input.kind ?? 'user';
  if (!NOTE_KINDS.includes(kind)) throw new MemoryError('E_BAD_INPUT', `kind must be one of ${NOTE_KINDS.join(', ')}`);
  const verdict = gate(text);
  if (verdict.verdict === 'reject') {
    d.logger.warn('gate.reject', { kind: 'remember', detector: verdict.detector ?? '' });
    throw new MemoryError('E_REFUSED', 'not remembered: the text reads as an instruction to the assistant (poison gate)');
  }
  const at = input.at ?? d.clock.now();
  const firstLine = text.split('\n').find((l) => l.trim())!.trim();
  const summary = firstLine.length > 200 ? firstLine.slice(0, 199) + '…' : firstLine;
  const folder = input.project ? projectDir(input.project) : VAULT_DIRS.semantic;
  const rel = `${folder}/${noteFileSlug(firstLine)}.md`;
  const frontmatter: Record<string, unknown> = {
    kind, summary, pinned: true, origin: { by: 'remember' }, created: new Date(at).toISOString(),
  };
  if (input.project) frontmatter.project = input.project;
  if (verdict.verdict === 'untrusted') frontmatter.tags = ['untrusted'];
  const written = await writeNote(d.vaultDir, rel, { frontmatter, body: text + '\n' }, { mask: true });
  const id = await d.vault.syncFile(written.relPath);
  if (!id) throw new MemoryError('E_INTERNAL', 'the note was written but could not be indexed');
  return { id, path: written.path };
}

/**
 * Review queue "promote now": the item becomes a vault note at once, without a model — its summary (or first
 * line) and text, through the poison gate (a reject writes nothing: E_REFUSED; untrusted text is tagged) —
 * and the item is archived with `promotedTo`, as consolidation does. Returns the note's id and path.
 */
export async function promoteToNote(d: DirectNoteDeps, id: string): Promise<{ id: string; path: string }> {
  const it = d.store.items.get(id);
  if (!it) throw new MemoryError('E_NOT_FOUND', 'no such memory');
  if (it.kind === 'note') throw new MemoryError('E_BAD_INPUT', 'this memory is already a vault note');
  if (it.trust === 'quarantined' || it.archivedAt !== null) throw new MemoryError('E_REFUSED', 'a quarantined or archived memory is not promoted');
  const text = (it.kind === 'raw' ? d.textOf(it) : it.text ?? it.summary ?? '').trim();
  if (!text) throw new MemoryError('E_BAD_INPUT', 'nothing to promote: the memory has no text');
  const verdict = gate(text);
  if (verdict.verdict === 'reject') {
    d.logger.warn('gate.reject', { kind: 'promote', detector: verdict.detector ?? '' });
    throw new MemoryError('E_REFUSED', 'not promoted: the text reads as an instruction to the assistant (poison gate)');
  }
  const firstLine = (it.summary ?? text.split('\n').find((l) => l.trim()) ?? id).replace(/\s+/g, ' ').trim();
  const summary = firstLine.length > 200 ? firstLine.slice(0, 199) + '…' : firstLine;
  const now = d.clock.now();
  const folder = it.project ? projectDir(it.project) : VAULT_DIRS.semantic;
  const frontmatter: Record<string, unknown> = {
    kind: it.project ? 'project' : 'reference', summary, origin: { by: 'review', from: id }, created: new Date(now).toISOString(),
  };
  if (it.project) frontmatter.project = it.project;
  const tags = [...it.tags, ...(verdict.verdict === 'untrusted' ? ['untrusted'] : [])];
  if (tags.length) frontmatter.tags = [...new Set(tags)];
  const written = await writeNote(d.vaultDir, `${folder}/${noteFileSlug(summary)}.md`, { frontmatter, body: text + '\n' }, { mask: true });
  const noteId = await d.vault.syncFile(written.relPath);
  if (!noteId) throw new MemoryError('E_INTERNAL', 'the note was written but could not be indexed');
  await d.store.transaction((tx) => tx.items.patch(id, {
    archivedAt: now, originalId: it.originalId ?? id, meta: { ...it.meta, archivedReason: 'promoted', promotedTo: noteId },
  }));
  d.logger.info('review.promoted', { id, to: noteId });
  return { id: noteId, path: written.path };
}

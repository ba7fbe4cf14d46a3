// Pin / unpin a vault note by rewriting only its frontmatter's `pinned` key. A note whose frontmatter
// does not parse is refused rather than rewritten, so nothing the person wrote is lost.
import { promises as fsp } from 'node:fs';
import { MemoryError } from '../errors';
import { parseNote } from './noteParser';
import { writeNote } from './noteWriter';
import { resolveInVault } from './vaultLayout';

/** Sets or clears `pinned` in a note's frontmatter (the caller re-indexes it). Returns the new value. */
export async function setNoteFilePinned(vaultDir: string, relPath: string, pinned: boolean): Promise<boolean> {
  const abs = resolveInVault(vaultDir, relPath);
  const parsed = parseNote(relPath, await fsp.readFile(abs));
  if (parsed.skipped) throw new MemoryError('E_BAD_INPUT', 'this file is not a readable note');
  if (parsed.problems.some((p) => p.code === 'malformed_frontmatter')) {
    throw new MemoryError('E_BAD_INPUT', 'the note\'s frontmatter does not parse; fix it before pinning');
  }
  if (parsed.pinned === pinned) return pinned;
  const frontmatter = { ...parsed.frontmatter };
  if (pinned) frontmatter.pinned = true;
  else delete frontmatter.pinned;
  // mask: false — the person's own note is rewritten as is; only the pinned key changes.
  await writeNote(vaultDir, relPath, { frontmatter, body: parsed.body }, { overwrite: true, mask: false });
  return pinned;
}

// The repository's agent files as project documents (issue #15 point 4): AGENTS.md, CLAUDE.md and
// .github/copilot-instructions.md, when present at the workspace root, are loaded as `dc:` sections
// (idempotent: loadDocument writes only changed sections), scoped to the project, gated like any document,
// trusted by their git author, and removed when the file goes.
// Double injection: an agent that already receives a file from its own runtime does not get that file's
// sections again in its automatic recall block — `agentFilesFor(agent)` names them and the recaller drops
// those hits for a RecallRequest with that `agent` (search and expand still find them).
import { promises as fsp, realpathSync } from 'node:fs';
import * as path from 'node:path';
import { errorCode } from '../errors';
import type { Clock, Logger } from '../host';
import type { Store } from '../store/store';
import { loadDocument, MAX_DOCUMENT_BYTES } from '../write/docIngest';

/** Workspace-relative paths of the agent files, in load order. */
export const AGENT_FILES: readonly string[] = ['AGENTS.md', 'CLAUDE.md', '.github/copilot-instructions.md'];

/**
 * The agent files an agent's own runtime already puts in its context: Claude Code reads CLAUDE.md; GitHub
 * Copilot (VS Code chat, the @memory participant's model, Copilot CLI) reads AGENTS.md and
 * .github/copilot-instructions.md. Unknown agents: none (they get every section).
 */
export function agentFilesFor(agent: string | undefined): readonly string[] {
  if (!agent) return [];
  if (agent === 'claude-code' || agent === 'claude') return ['CLAUDE.md'];
  if (agent.startsWith('copilot')) return ['AGENTS.md', '.github/copilot-instructions.md'];
  return [];
}

export interface AgentFileDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  root: string;
  projectId: string;
  /** Owner or peer for the file at an absolute path (git author, uncommitted). */
  trustOf: (abs: string, bytes: Uint8Array) => 'owner' | 'peer';
}

/** Loads (or re-loads, or removes) every agent file; returns the workspace-relative paths loaded. */
export async function loadAgentFiles(deps: AgentFileDeps): Promise<string[]> {
  const loaded: string[] = [];
  for (const rel of AGENT_FILES) {
    const abs = path.join(deps.root, ...rel.split('/'));
    const bytes = await readInside(deps.root, abs);
    try {
      if (bytes) {
        const res = await loadDocument(deps, { file: { name: abs, bytes }, project: deps.projectId, trust: deps.trustOf(abs, bytes) });
        await tagRows(deps, res.ids, rel);
        loaded.push(rel);
        continue;
      }
    } catch (e) {
      deps.logger.warn('project.agent_file_failed', { file: rel, code: errorCode(e) });
    }
    await removeDocument(deps, abs);
  }
  return loaded;
}

/** The file's bytes when it is a regular file inside the root (a symlink out of the repository is not read). */
async function readInside(root: string, abs: string): Promise<Uint8Array | undefined> {
  try {
    const st = await fsp.stat(abs);
    if (!st.isFile() || st.size > MAX_DOCUMENT_BYTES) return undefined;
    const real = realpathSync(abs);
    const rel = path.relative(realpathSync(root), real);
    if (rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
    return await fsp.readFile(abs);
  } catch {
    return undefined;
  }
}

/** Marks the sections as this project's agent file (recall shows them only while the project vault is attached). */
async function tagRows(deps: AgentFileDeps, ids: string[], rel: string): Promise<void> {
  const todo = deps.store.items.getMany(ids).filter((it) => it.meta.agentFile !== rel || it.meta.projectVault !== deps.projectId);
  if (!todo.length) return;
  await deps.store.transaction((tx) => {
    for (const it of todo) tx.items.patch(it.id, { meta: { ...it.meta, agentFile: rel, projectVault: deps.projectId } });
  });
}

async function removeDocument(deps: AgentFileDeps, abs: string): Promise<void> {
  const ids: string[] = [];
  deps.store.items.forEach({ kind: 'doc' }, (it) => { if (it.meta.doc === abs) ids.push(it.id); });
  if (!ids.length) return;
  await deps.store.transaction((tx) => { for (const id of ids) { tx.items.delete(id); tx.itemSources.remove(id); } });
  deps.logger.info('project.agent_file_removed', { sections: ids.length });
}

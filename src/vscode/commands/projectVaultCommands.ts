// Team memory commands (issue #15): Share with Project (a personal note moves into the repository's project
// vault, masked, as an uncommitted file the person reviews and commits), Make Personal (back), Propose Project
// Notes in This Project (the per-project switch for capture and memory_save, kept in the user's settings), and
// Re-sync Project Vault. Each returns what it did so integration tests can assert without reading the UI; a
// refusal (secret-tagged note, a path already taken) is shown with its reason and returned as `{ refused }`.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { isMemoryError, MemoryError } from '../../engine/errors';
import type { Logger } from '../../engine/host';
import { PROJECT_NOTE_PREFIX } from '../../engine/types';
import { NOTE_ID_PREFIX, noteId } from '../../engine/vault/vaultLayout';
import { commandRegistrar, type EngineHost } from '../engineHost';
import type { ProjectContext } from '../config';
import { readProjectVaultSettings, type ProjectVaultController, type ProjectVaultState } from '../project/projectVaultController';
import { vaultRelPath } from '../views/vaultTree';
import type { VaultNode } from '../views/vaultModel';

export const PROJECT_COMMANDS = {
  share: 'memory.shareWithProject',
  makePersonal: 'memory.makePersonal',
  togglePropose: 'memory.toggleProposeProjectNotes',
  sync: 'memory.syncProjectVault',
} as const;

export interface ShareOptions { confirmed?: boolean }
export type ShareResult = { path: string; id: string } | { refused: string; message: string };

/**
 * The note id a command was run on: a Vault tree node, an id string, or the note open in the editor (a project
 * vault file comes back as `pv:@<relative path>`, resolved against the attached vault's notes by the caller).
 */
function noteIdOf(arg: unknown, personalDir: string, projectDir: string | undefined): string | undefined {
  if (typeof arg === 'string') return arg;
  const node = arg as VaultNode | undefined;
  if (node && typeof node === 'object' && node.type === 'note') return node.note.id;
  const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
  if (uri?.scheme !== 'file') return undefined;
  const personal = vaultRelPath(personalDir, uri.fsPath);
  if (personal) return noteId(personal);
  const rel = projectDir ? vaultRelPath(projectDir, uri.fsPath) : undefined;
  return rel ? `${PROJECT_NOTE_PREFIX}@${rel}` : undefined;
}

export function registerProjectVaultCommands(
  context: vscode.ExtensionContext,
  deps: { host: EngineHost; logger: Logger; projectVault: ProjectVaultController; project: () => ProjectContext },
): void {
  const reg = commandRegistrar(context, deps.logger);
  const attachedDir = (): string | undefined => {
    const s = deps.projectVault.state();
    return s.state === 'attached' ? s.info.dir : undefined;
  };
  const refused = (action: string, e: unknown): ShareResult => {
    if (!isMemoryError(e) || e.code !== 'E_REFUSED') throw e;
    const reason = String((e.details as { reason?: unknown } | undefined)?.reason ?? 'refused');
    deps.logger.info(`${action}.refused`, { reason });
    void vscode.window.showWarningMessage(`Memory: ${e.message}.`);
    return { refused: reason, message: e.message };
  };

  reg(PROJECT_COMMANDS.share, 'share_with_project', (arg, opts) => shareWithProject(deps, attachedDir(), arg, opts as ShareOptions | undefined, refused));

  reg(PROJECT_COMMANDS.makePersonal, 'make_personal', async (arg) => {
    const engine = await deps.host.get();
    const dir = attachedDir();
    if (!dir) throw new MemoryError('E_REFUSED', notAttachedSentence(deps.projectVault.state()));
    let id = noteIdOf(arg, engine.vaultDir, dir);
    if (id?.startsWith(`${PROJECT_NOTE_PREFIX}@`)) {
      const rel = id.slice(PROJECT_NOTE_PREFIX.length + 1);
      id = deps.projectVault.notes().find((n) => n.relPath === rel)?.id;
    }
    if (!id?.startsWith(PROJECT_NOTE_PREFIX)) throw new MemoryError('E_BAD_INPUT', 'run Make Personal on a project note in the Vault view, or with it open in the editor');
    try {
      const r = await engine.project.makePersonal(id);
      deps.logger.info('make_personal.done', { id: r.id });
      return r;
    } catch (e) {
      return refused('make_personal', e);
    }
  });

  reg(PROJECT_COMMANDS.togglePropose, 'toggle_propose_project_notes', async () => {
    const project = deps.project().project;
    if (!project) throw new MemoryError('E_REFUSED', 'this window has no project');
    const list = readProjectVaultSettings().proposeFor;
    const on = !list.includes(project);
    const next = on ? [...list, project] : list.filter((p) => p !== project);
    await vscode.workspace.getConfiguration('memory').update('projectVault.proposeNotes', next.length ? next : undefined, vscode.ConfigurationTarget.Global);
    await deps.projectVault.refresh();
    void vscode.window.showInformationMessage(on
      ? `Memory: notes captured or saved in project "${project}" now go to the project vault as uncommitted files for you to review.`
      : `Memory: notes in project "${project}" stay personal again.`);
    return on;
  });

  reg(PROJECT_COMMANDS.sync, 'sync_project_vault', async () => deps.projectVault.sync());
}

/** Share with Project: confirm (unless `confirmed`), move the note, say where it went. */
async function shareWithProject(
  deps: { host: EngineHost; logger: Logger; projectVault: ProjectVaultController },
  dir: string | undefined, arg: unknown, opts: ShareOptions | undefined, refused: (action: string, e: unknown) => ShareResult,
): Promise<ShareResult | undefined> {
  const engine = await deps.host.get();
  if (!dir) throw new MemoryError('E_REFUSED', notAttachedSentence(deps.projectVault.state()));
  const id = noteIdOf(arg, engine.vaultDir, dir);
  if (!id?.startsWith(NOTE_ID_PREFIX)) throw new MemoryError('E_BAD_INPUT', 'run Share with Project on a personal note in the Vault view, or with the note open in the editor');
  const item = engine.get(id);
  if (!item) throw new MemoryError('E_NOT_FOUND', 'that note is not in the index (save it first)');
  if (opts?.confirmed !== true) {
    const SHARE = 'Share';
    const pick = await vscode.window.showInformationMessage(
      `Share "${item.summary || item.path}" with everyone who clones this repository?`,
      { modal: true, detail: `It moves to ${path.basename(dir)}/${item.path} as an uncommitted file (secrets masked). Review it and commit it yourself; "Make Personal" moves it back.` },
      SHARE,
    );
    if (pick !== SHARE) return undefined;
  }
  try {
    const r = await engine.project.shareNote(id);
    deps.logger.info('share_with_project.done', { id: r.id });
    void vscode.window.showInformationMessage(`Memory: shared as ${path.basename(dir)}/${item.path} — review and commit it to share it with your team.`);
    return r;
  } catch (e) {
    return refused('share_with_project', e);
  }
}

function notAttachedSentence(s: ProjectVaultState): string {
  if (s.state === 'off' && s.reason === 'restricted') return 'Restricted Mode: trust this workspace to use its project vault';
  if (s.state === 'failed') return `the project vault is unavailable (${s.code})`;
  return 'no project vault is attached in this window (open a folder of a repository)';
}

// Vault commands (R-UI-3 context menu, R-UI-4 palette): Today's note, Open vault folder, Rebuild
// index, and the Vault tree's Reveal / Copy Memory Id / Pin / Unpin / Forget. Each returns what it did
// (path, id, report) so integration tests can assert without reading the UI.
// Pin/Unpin call `engine.setPinned` (only the frontmatter's `pinned` key is rewritten; a note whose
// frontmatter does not parse is refused, so nothing the person wrote is lost).
import * as path from 'node:path';
import * as vscode from 'vscode';
import { describeForgetPlan } from '../../engine/engine';
import { MemoryError } from '../../engine/errors';
import type { Logger } from '../../engine/host';
import { todayNotePath } from '../../engine/vault/dailyLog';
import type { VaultSyncReport } from '../../engine/vault/vaultIndex';
import { commandRegistrar, type EngineHost } from '../engineHost';
import type { VaultNode } from '../views/vaultModel';

export const COMMANDS = {
  todaysNote: 'memory.todaysNote',
  openVaultFolder: 'memory.openVaultFolder',
  rebuildIndex: 'memory.rebuildIndex',
  revealInOS: 'memory.revealInOS',
  copyId: 'memory.copyId',
  pin: 'memory.pin',
  unpin: 'memory.unpin',
  forget: 'memory.forgetNote',
} as const;

type NoteNode = Extract<VaultNode, { type: 'note' }>;

function isNode(v: unknown): v is VaultNode {
  return typeof v === 'object' && v !== null && typeof (v as VaultNode).relPath === 'string' && typeof (v as VaultNode).type === 'string';
}

function noteArg(v: unknown): NoteNode {
  if (isNode(v) && v.type === 'note') return v;
  throw new MemoryError('E_BAD_INPUT', 'run this command from a note in the Vault view');
}

export function registerVaultCommands(context: vscode.ExtensionContext, host: EngineHost, logger: Logger): void {
  const reg = commandRegistrar(context, logger);

  reg(COMMANDS.todaysNote, 'todays_note', async () => {
    const engine = await host.get();
    const file = await todayNotePath(engine.vaultDir, engine.clock.now(), engine.clock.timeZone());
    await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: false });
    logger.info('todays_note.opened', {});
    return file;
  });

  reg(COMMANDS.openVaultFolder, 'open_vault_folder', async () => {
    const engine = await host.get();
    const uri = vscode.Uri.file(engine.vaultDir);
    const NEW_WINDOW = 'Open in New Window';
    const REVEAL = 'Reveal in File Manager';
    const pick = await vscode.window.showInformationMessage(
      'Open the memory vault folder?', { modal: true, detail: `${engine.vaultDir}\nThe vault is plain Markdown: edits are picked up within a second.` },
      NEW_WINDOW, REVEAL,
    );
    if (pick === NEW_WINDOW) await vscode.commands.executeCommand('vscode.openFolder', uri, { forceNewWindow: true });
    else if (pick === REVEAL) await vscode.commands.executeCommand('revealFileInOS', uri);
    return pick;
  });

  reg(COMMANDS.rebuildIndex, 'rebuild_index', async () => {
    const engine = await host.get();
    const report = await vscode.window.withProgress<VaultSyncReport>(
      { location: vscode.ProgressLocation.Notification, title: 'Memory: rebuilding the index from the vault…' },
      () => engine.rebuild(),
    );
    const notes = report.added + report.updated;
    logger.info('rebuild.done', { ...report });
    void vscode.window.showInformationMessage(
      `Memory index rebuilt: ${notes} notes from ${report.scanned} files` +
      `${report.problems ? `, ${report.problems} with problems` : ''}${report.skipped ? `, ${report.skipped} skipped` : ''}.`,
    );
    return report;
  });

  reg(COMMANDS.revealInOS, 'reveal', async (arg) => {
    if (!isNode(arg)) throw new MemoryError('E_BAD_INPUT', 'run this command from the Vault view');
    const engine = await host.get();
    const uri = vscode.Uri.file(path.join(engine.vaultDir, ...arg.relPath.split('/')));
    await vscode.commands.executeCommand('revealFileInOS', uri);
    return uri.fsPath;
  });

  reg(COMMANDS.copyId, 'copy_id', async (arg) => {
    const node = noteArg(arg);
    await vscode.env.clipboard.writeText(node.note.id);
    void vscode.window.setStatusBarMessage(`Copied ${node.note.id}`, 3000);
    return node.note.id;
  });

  const pinCommand = (pinned: boolean) => async (arg: unknown) => {
    const node = noteArg(arg);
    const engine = await host.get();
    await engine.setPinned(node.note.id, pinned);
    logger.info(pinned ? 'note.pinned' : 'note.unpinned', { id: node.note.id });
    return pinned;
  };
  reg(COMMANDS.pin, 'pin', pinCommand(true));
  reg(COMMANDS.unpin, 'unpin', pinCommand(false));

  reg(COMMANDS.forget, 'forget', async (arg) => {
    const node = noteArg(arg);
    const engine = await host.get();
    const FORGET = 'Forget';
    const plan = await engine.forgetPreview(node.note.id);
    const pick = await vscode.window.showWarningMessage(
      `Forget "${node.label}"?`,
      { modal: true, detail: `Removes:\n${describeForgetPlan(plan).map((l) => `• ${l}`).join('\n')}\n\nThis cannot be undone.` },
      FORGET,
    );
    if (pick !== FORGET) return undefined;
    return engine.forget(node.note.id);
  });
}

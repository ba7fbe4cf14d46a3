// The VS Code side of the embedder controller: the one-time question as a notification with SPEC §10's
// wording and buttons, the download under a progress notification, and the "Never" answer written to
// user settings. Kept apart so EmbedderController runs in unit tests without `vscode`.
import * as vscode from 'vscode';
import { SECTION } from './config';
import { DOWNLOAD_BUTTONS, type DownloadAnswer, type EmbedderUi } from './embedderController';

export function createEmbedderUi(): EmbedderUi {
  return {
    async ask(question) {
      const picked = await vscode.window.showInformationMessage(question, DOWNLOAD_BUTTONS.download, DOWNLOAD_BUTTONS.notNow, DOWNLOAD_BUTTONS.never);
      const entry = Object.entries(DOWNLOAD_BUTTONS).find(([, label]) => label === picked);
      return entry?.[0] as DownloadAnswer | undefined;
    },
    withProgress(title, task) {
      return Promise.resolve(vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: false }, (progress) => {
        let done = 0; // percent already reported: vscode.Progress takes increments
        return task((fraction, label) => {
          const pct = Math.max(0, Math.min(100, Math.floor(fraction * 100)));
          progress.report({ increment: pct > done ? pct - done : undefined, message: label });
          done = Math.max(done, pct);
        });
      }));
    },
    info(message) { void vscode.window.showInformationMessage(message); },
    warn(message) { void vscode.window.showWarningMessage(message); },
    async setNever() {
      await vscode.workspace.getConfiguration(SECTION).update('embedder.download', 'never', vscode.ConfigurationTarget.Global);
    },
  };
}

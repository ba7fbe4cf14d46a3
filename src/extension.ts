// Composition root: builds the engine and registers each surface. Holds no memory logic.
import * as vscode from 'vscode';

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  context.subscriptions.push(
    vscode.commands.registerCommand('memory.showStatus', () => ({ ok: true })),
  );
}

export function deactivate(): void {}

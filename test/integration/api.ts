// Shared set-up for integration tests: the activated extension's API and the runner's settings.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { MemoryExtensionApi } from '../../src/extension';
import { waitForEvent } from './waitFor';

export const EXTENSION_ID = 'memory-for-vscode.vscode-memory';

export async function activated(): Promise<MemoryExtensionApi> {
  const ext = vscode.extensions.getExtension<MemoryExtensionApi>(EXTENSION_ID);
  assert.ok(ext, `${EXTENSION_ID} is installed in the extension host`);
  const api = await ext.activate();
  assert.equal(ext.isActive, true);
  return api;
}

/**
 * The web workbench may hand the user's settings.json to the extension host a moment after start:
 * wait for the runner's vault path to arrive (an event, not a sleep).
 */
export async function userSettingsLoaded(): Promise<void> {
  const testVault = process.env.MEMORY_TEST_VAULT;
  // The user's value (globalValue): the runner's workspace sets its own vaultPath, which must never count.
  const current = () => vscode.workspace.getConfiguration('memory').inspect<string>('vaultPath')?.globalValue;
  if (!testVault || current() === testVault) return;
  await waitForEvent(vscode.workspace.onDidChangeConfiguration, 'memory.vaultPath from user settings', 20_000,
    () => current() === testVault);
}

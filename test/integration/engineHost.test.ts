// A store the engine cannot open (here: written by a newer version) in a real extension host: the
// failure is remembered with its code, logged, and reported by Show Status, and nothing throws past
// the EngineHost — the views and commands stay up (R-UI-3, R-STORE-*).
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import * as vscode from 'vscode';
import { isMemoryError } from '../../src/engine/errors';
import type { LogFields, Logger } from '../../src/engine/host';
import { DEFAULT_SETTINGS } from '../../src/engine/settings';
import { Store } from '../../src/engine/store/store';
import { collectStatusFigures } from '../../src/vscode/commands/statusCommand';
import { EngineHost } from '../../src/vscode/engineHost';
import { EXTENSION_ID, activated } from './api';

/** Records event names and fields (never text), like the output channel would. */
class RecordingLogger implements Logger {
  readonly lines: { level: string; event: string; fields?: LogFields }[] = [];
  trace(event: string, fields?: LogFields) { this.lines.push({ level: 'trace', event, fields }); }
  info(event: string, fields?: LogFields) { this.lines.push({ level: 'info', event, fields }); }
  warn(event: string, fields?: LogFields) { this.lines.push({ level: 'warn', event, fields }); }
  error(event: string, fields?: LogFields) { this.lines.push({ level: 'error', event, fields }); }
}

describe('The engine host in VS Code', () => {
  let dir: string;
  after(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

  it('reports a store from a newer version by its code and keeps the extension up', async () => {
    await activated();
    const extensionPath = vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;
    const wasmPath = path.join(extensionPath, 'dist', 'sql-wasm.wasm');
    dir = mkdtempSync(path.join(tmpdir(), 'memory-newer-'));
    const storeDir = path.join(dir, 'store');
    const store = await Store.open({ dir: storeDir, wasmPath, watch: false });
    await store.close();
    const bytes = readFileSync(wasmPath);
    const SQL = await initSqlJs({ wasmBinary: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) });
    const db = new SQL.Database(readFileSync(path.join(storeDir, 'memory.db')));
    db.exec("PRAGMA user_version = 99; UPDATE meta SET value = '99' WHERE key = 'schema_version'");
    writeFileSync(path.join(storeDir, 'memory.db'), db.export());
    db.close();

    const logger = new RecordingLogger();
    const host = new EngineHost({
      storeDir, vaultDir: () => path.join(dir, 'vault'), settings: () => DEFAULT_SETTINGS, logger, extensionPath,
    });
    try {
      await assert.rejects(host.get(), (e) => isMemoryError(e, 'E_SCHEMA_NEWER'));
      const state = host.state;
      assert.equal(state.state, 'failed');
      assert.equal(state.state === 'failed' && state.code, 'E_SCHEMA_NEWER');
      assert.ok(logger.lines.some((l) => l.level === 'error' && l.event === 'engine.open_failed' && l.fields?.code === 'E_SCHEMA_NEWER'));
      const figures = await collectStatusFigures(host, DEFAULT_SETTINGS, path.join(dir, 'vault'));
      assert.equal(figures.error, 'E_SCHEMA_NEWER', 'Show Status names the failure');
      assert.equal(figures.card, undefined);
    } finally {
      await host.close();
    }
    const commands = await vscode.commands.getCommands(true);
    for (const c of ['memory.showStatus', 'memory.todaysNote', 'memory.rebuildIndex', 'memory.openVaultFolder']) {
      assert.ok(commands.includes(c), `${c} is still registered`);
    }
  });
});

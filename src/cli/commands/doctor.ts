// `vscode-memory doctor`: checks the installation and the store without changing anything.
import { accessSync, constants as fsc, existsSync } from 'node:fs';
import * as path from 'node:path';
import { MemoryError } from '../../engine/errors';
import { sqlJsPatchState } from '../../engine/store/sqlJsPatched';
import { describeGate, gateModelStatus } from '../../engine/write/poisonGate';
import type { Command, CommandContext } from '../command';

export const doctorCommand: Command = {
  name: 'doctor',
  summary: 'checks the installation and the store without changing anything',
  usage: 'doctor',
  options: {},
  standalone: true,
  run: async (_p, c) => doctor(c),
};

async function doctor(c: CommandContext): Promise<Record<string, unknown>> {
  const checks: { check: string; ok: boolean; detail?: string }[] = [];
  const add = (check: string, ok: boolean, detail?: string) => checks.push({ check, ok, ...(detail ? { detail } : {}) });
  const major = Number(process.versions.node.split('.')[0]);
  add('node_version', major >= 20, process.versions.node);
  // sql.js: its wasm and its JavaScript (loaded from beside the bundle and patched, store/sqlJsPatched.ts).
  const missing = ['sql-wasm.wasm', 'sql-wasm.js'].filter((f) => !existsSync(path.join(c.binDir, f)));
  add('sql_wasm', missing.length === 0, missing.length ? `${missing.join(' and ')} missing next to cli.js` : undefined);
  add('store_dir_exists', existsSync(c.storeDir));
  if (existsSync(c.storeDir)) {
    let writable = true;
    try { accessSync(c.storeDir, fsc.W_OK); } catch { writable = false; }
    add('store_dir_writable', writable);
    try {
      const engine = await c.engine();
      const st = engine.status();
      add('store_opens', true, `seq ${st.store.seq}`);
      add('journal_clean', st.openReport.tornBytes === 0, st.openReport.tornBytes ? `${st.openReport.tornBytes} torn bytes were cut` : undefined);
      add('snapshot_readable', st.openReport.snapshotMovedAside === null, st.openReport.snapshotMovedAside ? 'an unreadable snapshot was moved aside' : undefined);
      // Informational (not part of `ok`): unpatched, the store still works but copies its file as it grows.
      const p = sqlJsPatchState();
      if (p) add('sql_js_patched', p.missing.length === 0 && p.resizable, p.missing.length ? `unpatched: ${p.missing.join(', ')} not found in this sql.js` : p.resizable ? undefined : 'no resizable ArrayBuffer in this Node');
    } catch (e) {
      add('store_opens', false, e instanceof MemoryError ? `${e.code}: ${e.message}` : 'error');
    }
  }
  add('vault_dir_exists', existsSync(c.vaultDir));
  // The poison gate's learned stage (both models) ships inside the bundle: off only if a weights file is corrupt or
  // of another version (the rules and the other model still run; the detail says why).
  const g = gateModelStatus();
  add('gate_model', g.active && g.secondError === null, describeGate(g));
  return { ok: checks.every((x) => x.ok || x.check === 'store_dir_exists' || x.check === 'sql_js_patched' || x.check === 'vault_dir_exists'), storeDir: c.storeDir, vaultDir: c.vaultDir, checks, gate: g };
}

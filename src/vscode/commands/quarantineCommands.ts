// Palette commands for provider quarantine (SPEC R-QUAR-1..3, R-UI-4): Quarantine Provider Memory… (pick
// providers with their recallable counts, optional whole local days, a preview of the counts, then a modal
// confirmation) and Release Quarantine… (pick from the history). Each returns the engine's result so tests can
// assert; tests pass arguments instead of using the UI (`{providers, from?, to?, confirmed: true}` / an id).
import * as vscode from 'vscode';
import type { MemoryEngine } from '../../engine/engine';
import { MemoryError } from '../../engine/errors';
import type { Logger } from '../../engine/host';
import { isDay, type QuarantineApplyResult, type QuarantineCounts, type QuarantineReleaseResult } from '../../engine/maintain/quarantine';
import { commandRegistrar, type EngineHost } from '../engineHost';

export const QUARANTINE_COMMANDS = {
  apply: 'memory.quarantine.apply',
  release: 'memory.quarantine.release',
} as const;

/** Arguments tests pass instead of the UI (never used by menus). */
export interface QuarantineApplyArgs {
  providers?: string[];
  from?: string;
  to?: string;
  /** Skips the modal confirmation. */
  confirmed?: boolean;
}

export function describeCounts(c: QuarantineCounts): string {
  return `${c.raw} raw row(s), ${c.facts} fact(s), ${c.summaries} summary(ies), ${c.notes} capture note(s) from ${c.conversations} conversation(s)`;
}

const dayInput = (title: string, prompt: string) => vscode.window.showInputBox({
  title, prompt, placeHolder: 'YYYY-MM-DD (empty: no limit)', ignoreFocusOut: true,
  validateInput: (v) => (!v.trim() || isDay(v.trim()) ? undefined : 'Write a day as YYYY-MM-DD, or leave it empty'),
});

export function registerQuarantineCommands(context: vscode.ExtensionContext, deps: { host: EngineHost; logger: Logger }): void {
  const { host, logger } = deps;
  const reg = commandRegistrar(context, logger);

  const pickProviders = async (engine: MemoryEngine): Promise<string[] | undefined> => {
    const list = engine.quarantineProviders();
    if (!list.length) {
      void vscode.window.showInformationMessage('Memory: no provider has written memory yet.');
      return undefined;
    }
    const picked = await vscode.window.showQuickPick(
      list.map((p) => ({ label: p.provider, description: `${p.recallable} recallable row(s)`, detail: p.total !== p.recallable ? `${p.total - p.recallable} already hidden` : undefined })),
      { title: 'Memory: Quarantine Provider Memory — choose providers', canPickMany: true, ignoreFocusOut: true },
    );
    return picked?.length ? picked.map((p) => p.label) : undefined;
  };

  reg(QUARANTINE_COMMANDS.apply, 'quarantine', async (arg): Promise<QuarantineApplyResult | undefined> => {
    const a = (arg && typeof arg === 'object' ? arg : {}) as QuarantineApplyArgs;
    const engine = await host.get();
    let providers = Array.isArray(a.providers) ? a.providers : undefined;
    let from = a.from;
    let to = a.to;
    if (!providers) {
      providers = await pickProviders(engine);
      if (!providers) return undefined;
      const f = await dayInput('Memory: Quarantine — from (first local day, inclusive)', 'Optional first day to hide');
      if (f === undefined) return undefined;
      const t = await dayInput('Memory: Quarantine — to (last local day, inclusive)', 'Optional last day to hide');
      if (t === undefined) return undefined;
      from = f.trim() || undefined;
      to = t.trim() || undefined;
    }
    const sel = { providers, from, to };
    const preview = engine.quarantinePreview(sel);
    const c = preview.counts;
    const nothing = c.raw + c.facts + c.summaries + c.notes === 0;
    if (!nothing && a.confirmed !== true) {
      const range = from || to ? ` (${from ?? 'start'} … ${to ?? 'today'})` : ' (all days)';
      const ok = await vscode.window.showWarningMessage(
        `Quarantine what ${providers.join(', ')} wrote${range}?`,
        { modal: true, detail: `Hides ${describeCounts(c)}. Your own messages and the transcript stay; nothing is deleted. Release Quarantine… undoes it.` },
        'Quarantine',
      );
      if (ok !== 'Quarantine') return undefined;
    }
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Memory: quarantining…', cancellable: false },
      () => engine.quarantineApply(sel),
    );
    logger.info('command.quarantine', { id: result.id ?? 'none', ...result.counts });
    if (!result.id) void vscode.window.showInformationMessage('Memory: nothing left to quarantine.');
    else void vscode.window.showInformationMessage(`Memory: quarantine ${result.id} hides ${describeCounts(result.counts)}.`);
    return result;
  });

  reg(QUARANTINE_COMMANDS.release, 'release_quarantine', async (arg): Promise<QuarantineReleaseResult | undefined> => {
    const engine = await host.get();
    let id = typeof arg === 'string' && arg.trim() ? arg.trim() : undefined;
    if (!id) {
      const active = engine.quarantineHistory().filter((q) => q.status === 'active');
      if (!active.length) {
        void vscode.window.showInformationMessage('Memory: no active quarantine to release.');
        return undefined;
      }
      const picked = await vscode.window.showQuickPick(active.map((q) => ({
        id: q.id, label: q.providers.join(', ') || q.id,
        description: `${new Date(q.created).toLocaleString()}${q.from || q.to ? ` · ${q.from ?? 'start'} … ${q.to ?? 'today'}` : ''}`,
        detail: describeCounts(q.counts),
      })), { title: 'Memory: Release Quarantine — choose one', ignoreFocusOut: true });
      id = picked?.id;
      if (!id) return undefined;
    }
    if (id.length > 100) throw new MemoryError('E_BAD_INPUT', 'that is not a quarantine id');
    const target = id;
    const r = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Memory: releasing quarantine…', cancellable: false },
      () => engine.quarantineRelease(target),
    );
    logger.info('command.release_quarantine', { id: r.id, rows: r.restoredRows, notes: r.restoredNotes.length, missing: r.missingNotes.length });
    const extra = [
      r.missingNotes.length ? `${r.missingNotes.length} note(s) were missing from .quarantine` : '',
      r.keptByOther ? `${r.keptByOther} item(s) stay hidden by another quarantine` : '',
    ].filter(Boolean).join('; ');
    void vscode.window.showInformationMessage(`Memory: released ${r.id} — ${r.restoredRows} row(s) and ${r.restoredNotes.length} note(s) restored${extra ? `; ${extra}` : ''}.`);
    return r;
  });
}

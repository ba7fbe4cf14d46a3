// "Memory: Consolidate Now" (SPEC R-MAINT-1) with progress and cancellation, and the nightly run when
// `memory.consolidation.nightly` is on. Both use the background model (pickBackgroundModel); without one the
// engine promotes nothing and says so. Tests pass `{ noModel: true }` (or `{ silent: true }`) instead of UI.
import * as vscode from 'vscode';
import type { Logger } from '../../engine/host';
import type { ConsolidationReport } from '../../engine/maintain/consolidate';
import type { EngineSettings } from '../../engine/settings';
import { localDay } from '../../engine/vault/vaultLayout';
import { pickBackgroundModel } from '../bridge/lmBackgroundModel';
import { reportFailure, type EngineHost } from '../engineHost';
import { scheduleDaily } from './dailyRun';

export const CONSOLIDATE_COMMAND = 'memory.consolidateNow';

/** Arguments tests pass instead of the UI (never used by menus). */
export interface ConsolidateArgs {
  /** Run without a background model (promotions are skipped and counted). */
  noModel?: boolean;
  /** No closing notification. */
  silent?: boolean;
}

/** Nightly: checked hourly (ms); the run happens at the first check after NIGHTLY_HOUR local time each day. */
const NIGHTLY_CHECK_MS = 60 * 60_000;
const NIGHTLY_HOUR = 3;

export function describeReport(r: ConsolidationReport): string {
  const parts = [`${r.promoted} promoted`, `${r.demoted} archived`, `${r.expired} working block(s) expired`];
  if (r.reinforced) parts.push(`${r.reinforced} note(s) reinforced`);
  if (r.skippedNoModel) parts.push(`${r.skippedNoModel} waiting for a background model`);
  if (r.skippedGate) parts.push(`${r.skippedGate} held back by the poison gate`);
  if (r.deferred) parts.push(`${r.deferred} deferred`);
  return parts.join(', ');
}

export function registerConsolidateCommand(
  context: vscode.ExtensionContext,
  deps: { host: EngineHost; logger: Logger; settings: () => EngineSettings },
): void {
  const { host, logger, settings } = deps;
  const run = async (args: ConsolidateArgs, token?: vscode.CancellationToken): Promise<ConsolidationReport> => {
    const engine = await host.get();
    const model = args.noModel ? undefined : await pickBackgroundModel(settings().backgroundModel, settings().localModels);
    const ac = new AbortController();
    const sub = token?.onCancellationRequested(() => ac.abort());
    try {
      return await engine.consolidate({ model, signal: ac.signal });
    } finally {
      sub?.dispose();
    }
  };

  context.subscriptions.push(vscode.commands.registerCommand(CONSOLIDATE_COMMAND, async (arg?: unknown): Promise<ConsolidationReport | undefined> => {
    const args = (arg && typeof arg === 'object' ? arg : {}) as ConsolidateArgs;
    try {
      const report = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'Memory: consolidating…', cancellable: true },
        (_progress, token) => run(args, token),
      );
      logger.info('command.consolidate', { promoted: report.promoted, demoted: report.demoted, expired: report.expired, skippedNoModel: report.skippedNoModel, cancelled: report.cancelled });
      if (!args.silent) {
        void vscode.window.showInformationMessage(`Memory: consolidation ${report.cancelled ? 'cancelled' : 'done'} — ${describeReport(report)}.`);
      }
      return report;
    } catch (e) {
      reportFailure(logger, 'consolidate', e);
      return undefined;
    }
  }));

  // Nightly (off by default): one run per local day, shared across windows through the store's last-run stamp.
  scheduleDaily(context, host, logger, {
    name: 'consolidate.nightly', everyMs: NIGHTLY_CHECK_MS,
    enabled: () => settings().consolidationNightly && settings().enabled,
    hour: () => NIGHTLY_HOUR,
    lastDay: (engine, zone) => { const last = engine.lastConsolidation(); return last === null ? null : localDay(last, zone); },
    run: async () => {
      const report = await run({});
      logger.info('consolidate.nightly', { promoted: report.promoted, demoted: report.demoted, expired: report.expired, skippedNoModel: report.skippedNoModel });
    },
  });
}

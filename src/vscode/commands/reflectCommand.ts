// "Memory: Morning Briefing" (SPEC R-MAINT-5) and the daily run when `memory.reflection.enabled` is on: the first
// check after `memory.reflection.hour` local time each day (while VS Code is open; every window shares the day
// stamp in the store, so one briefing a day). Uses the background model when there is one (pickBackgroundModel);
// without one, only the deterministic part is written. The note opens in the editor when run from the palette.
import * as vscode from 'vscode';
import type { Logger } from '../../engine/host';
import type { ReflectionResult } from '../../engine/maintain/reflection';
import type { EngineSettings } from '../../engine/settings';
import { pickBackgroundModel } from '../bridge/lmBackgroundModel';
import { reportFailure, type EngineHost } from '../engineHost';
import { scheduleDaily } from './dailyRun';

export const REFLECT_COMMAND = 'memory.reflect';

/** Arguments tests pass instead of the UI (never used by menus). */
export interface ReflectArgs {
  /** Without a background model (only the deterministic part). */
  noModel?: boolean;
  /** Do not open the note. */
  silent?: boolean;
}

/** The daily run is checked every 30 minutes (and a minute after start). */
const DAILY_CHECK_MS = 30 * 60_000;

export function registerReflectCommand(
  context: vscode.ExtensionContext,
  deps: { host: EngineHost; logger: Logger; settings: () => EngineSettings },
): void {
  const { host, logger, settings } = deps;
  const run = async (args: ReflectArgs): Promise<ReflectionResult> => {
    const engine = await host.get();
    const model = args.noModel ? undefined : await pickBackgroundModel(settings().backgroundModel, settings().localModels);
    return engine.reflect({ model });
  };

  context.subscriptions.push(vscode.commands.registerCommand(REFLECT_COMMAND, async (arg?: unknown): Promise<ReflectionResult | undefined> => {
    const args = (arg && typeof arg === 'object' ? arg : {}) as ReflectArgs;
    try {
      const r = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'Memory: writing the morning briefing…', cancellable: false },
        () => run(args),
      );
      logger.info('command.reflect', { day: r.day, modelPart: r.modelPart });
      if (!args.silent) await vscode.window.showTextDocument(vscode.Uri.file(r.path), { preview: true });
      return r;
    } catch (e) {
      reportFailure(logger, 'reflect', e);
      return undefined;
    }
  }));

  scheduleDaily(context, host, logger, {
    name: 'reflect.daily', everyMs: DAILY_CHECK_MS,
    enabled: () => settings().reflectionEnabled && settings().enabled,
    hour: () => settings().reflectionHour,
    lastDay: (engine) => engine.lastReflectionDay(),
    run: async () => {
      const r = await run({});
      logger.info('reflect.daily', { day: r.day, modelPart: r.modelPart });
      void vscode.window.showInformationMessage(`Memory: your morning briefing for ${r.day} is ready.`, 'Open').then((pick) => {
        if (pick) void vscode.window.showTextDocument(vscode.Uri.file(r.path));
      });
    },
  });
}

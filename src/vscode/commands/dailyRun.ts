// One scheduler for memory's once-a-day background jobs (nightly consolidation, the morning briefing): checked
// every `everyMs` and a minute after start (never during activation); a job runs at the first check after its
// local hour on a day it has not run yet — the day stamp lives in the store, so every window shares it.
import type * as vscode from 'vscode';
import type { Logger } from '../../engine/host';
import type { MemoryEngine } from '../../engine/engine';
import { errorCode } from '../../engine/errors';
import { localDay } from '../../engine/vault/vaultLayout';
import type { EngineHost } from '../engineHost';

export interface DailyRun {
  /** Log event prefix (`<name>_failed` on an error). */
  name: string;
  everyMs: number;
  /** Whether the job is switched on now (settings are read at each check). */
  enabled: () => boolean;
  /** The local hour from which it runs. */
  hour: () => number;
  /** The local day (`YYYY-MM-DD`) it last ran, from the store; null if never. */
  lastDay: (engine: MemoryEngine, zone: string) => string | null;
  run: () => Promise<void>;
}

export function scheduleDaily(context: vscode.ExtensionContext, host: EngineHost, logger: Logger, job: DailyRun): void {
  let busy = false;
  const tick = async () => {
    if (busy || !job.enabled()) return;
    busy = true;
    try {
      const engine = await host.get();
      const now = Date.now();
      const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
      const hour = Number(new Intl.DateTimeFormat('en-GB', { hour: 'numeric', hourCycle: 'h23', timeZone: zone }).format(now));
      if (hour < job.hour() || job.lastDay(engine, zone) === localDay(now, zone)) return;
      await job.run();
    } catch (e) {
      logger.warn(`${job.name}_failed`, { error: errorCode(e) });
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => { void tick(); }, job.everyMs);
  const first = setTimeout(() => { void tick(); }, 60_000);
  context.subscriptions.push({ dispose: () => { clearInterval(timer); clearTimeout(first); } });
}

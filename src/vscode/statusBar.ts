// The status bar item (R-UI-7): memory on/off, item count and headroom level, with a tooltip.
// Click opens the dashboard (Show Status stays in the palette). Counts only, no memory text.
import * as vscode from 'vscode';
import type { MemoryEngine } from '../engine/engine';
import type { Logger } from '../engine/host';
import type { EngineSettings } from '../engine/settings';
import { OPEN_DASHBOARD_COMMAND } from './dashboard/dashboardPanel';
import { describeEmbedder } from './embedderController';
import type { EngineHost } from './engineHost';

/** 500 ms: a burst of writes (a flush, a rebuild) updates the count once, still "live" to a person. */
const UPDATE_DEBOUNCE_MS = 500;

export type HealthLevel = 'ok' | 'warn' | 'critical';

/** Headroom level from the engine card; 'ok' if the card cannot be read (logged). */
export function healthOf(engine: MemoryEngine, logger: Logger): HealthLevel {
  try {
    return engine.status().health.level;
  } catch (e) {
    logger.warn('status_bar.health_unavailable', { error: (e as { code?: string })?.code ?? (e as Error)?.name ?? 'error' });
    return 'ok';
  }
}

/** The embedder in use and why, for the tooltip; undefined if the card cannot be read. */
function embedderLine(engine: MemoryEngine): string | undefined {
  try {
    return describeEmbedder(engine.status().embedder);
  } catch {
    return undefined;
  }
}

export class MemoryStatusBar implements vscode.Disposable {
  readonly item: vscode.StatusBarItem;
  private timer: NodeJS.Timeout | undefined;
  private engineSub: { dispose(): void } | undefined;
  private readonly subs: vscode.Disposable[] = [];

  constructor(private readonly host: EngineHost, private readonly settings: () => EngineSettings, private readonly logger: Logger) {
    this.item = vscode.window.createStatusBarItem('memory.status', vscode.StatusBarAlignment.Right, 100);
    this.item.name = 'Memory';
    this.item.command = OPEN_DASHBOARD_COMMAND;
    this.subs.push(
      host.onDidOpen((engine) => {
        this.engineSub?.dispose();
        this.engineSub = engine.onDidChange(() => this.schedule());
        this.update();
      }),
      host.onDidChangeState(() => this.update()),
    );
    if (host.current) this.engineSub = host.current.onDidChange(() => this.schedule());
    this.update();
    this.item.show();
  }

  schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => { this.timer = undefined; this.update(); }, UPDATE_DEBOUNCE_MS);
  }

  update(): void {
    const s = this.host.state;
    const on = this.settings().enabled;
    const tip = new vscode.MarkdownString(undefined, true);
    this.item.backgroundColor = undefined;
    if (s.state === 'failed') {
      this.item.text = '$(error) Memory';
      tip.appendMarkdown(`Memory could not open its store: \`${s.code}\`. See the "Memory" output.`);
      this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
    } else if (s.state !== 'open') {
      this.item.text = '$(sync~spin) Memory';
      tip.appendMarkdown('Memory is starting…');
    } else {
      const items = s.engine.store.items.count();
      const health = healthOf(s.engine, this.logger);
      this.item.text = on ? `$(database) Memory: ${items}` : '$(database) Memory: off';
      tip.appendMarkdown(`**Memory is ${on ? 'on' : 'off'}**  \n${items} items  \nHeadroom: ${health}  \n`);
      const embedder = embedderLine(s.engine);
      if (embedder) tip.appendMarkdown(`Embedder: ${embedder}  \n`);
      tip.appendMarkdown('Click to open the dashboard.');
      if (health === 'warn') this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
      if (health === 'critical') this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
    }
    this.item.tooltip = tip;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.engineSub?.dispose();
    for (const d of this.subs) d.dispose();
    this.item.dispose();
  }
}

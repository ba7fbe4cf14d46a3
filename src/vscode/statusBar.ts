// The status bar item (R-UI-7): memory on/off, item count and headroom level, with a tooltip.
// Click opens the dashboard (Show Status stays in the palette). Counts only, no memory text.
import * as vscode from 'vscode';
import type { EngineHeadline, MemoryEngine } from '../engine/engine';
import { Disposable, type Logger } from '../engine/host';
import type { EngineSettings } from '../engine/settings';
import { formatBytes } from '../engine/maintain/health';
import { OPEN_DASHBOARD_COMMAND } from './dashboard/dashboardPanel';
import { describeEmbedder } from './embedderController';
import type { EngineHost } from './engineHost';
import type { ProjectStatus } from './config';
import { projectNotes } from './commands/statusCommand';
import { errorCode } from '../engine/errors';

/** 500 ms: a burst of writes (a flush, a rebuild) updates the count once, still "live" to a person. */
const UPDATE_DEBOUNCE_MS = 500;

export type HealthLevel = 'ok' | 'warn' | 'critical';

/** The engine's cheap headline (counts, headroom, embedder); undefined if it cannot be read (logged). */
function headlineOf(engine: MemoryEngine, logger: Logger): EngineHeadline | undefined {
  try {
    return engine.headline();
  } catch (e) {
    logger.warn('status_bar.headline_unavailable', { error: errorCode(e) });
    return undefined;
  }
}

export class MemoryStatusBar extends Disposable implements vscode.Disposable {
  readonly item: vscode.StatusBarItem;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly host: EngineHost, private readonly settings: () => EngineSettings, private readonly logger: Logger,
    private readonly project?: () => ProjectStatus,
  ) {
    super();
    this.item = this._register(vscode.window.createStatusBarItem('memory.status', vscode.StatusBarAlignment.Right, 100));
    this.item.name = 'Memory';
    this.item.command = OPEN_DASHBOARD_COMMAND;
    this._register(host.onDidOpen(() => this.update()));
    this._register(host.onDidChangeItems(() => this.schedule()));
    this._register(host.onDidChangeState(() => this.update()));
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
      const head = headlineOf(s.engine, this.logger);
      const items = head?.items ?? 0;
      const health: HealthLevel = head?.health.level ?? 'ok';
      this.item.text = on ? `$(database) Memory: ${items}` : '$(database) Memory: off';
      const fp = head?.health.footprint;
      const where = fp ? ` — ${formatBytes(fp.memoryBytes)} in RAM (database, indexes, caches), ${formatBytes(fp.diskBytes)} on disk` : '';
      tip.appendMarkdown(`**Memory is ${on ? 'on' : 'off'}**  \n${items} items  \nHealth: ${health}${where}  \n`);
      const embedder = head ? describeEmbedder(head.embedder) : undefined;
      if (embedder) tip.appendMarkdown(`Embedder: ${embedder}  \n`);
      // Restricted Mode and a workspace-provided project awaiting confirmation: said once, here (issue #12).
      const notes = projectNotes(this.project?.());
      for (const n of notes) tip.appendMarkdown(`${n.charAt(0).toUpperCase()}${n.slice(1)}.  \n`);
      tip.appendMarkdown('Click to open the dashboard.');
      if (health === 'warn') this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
      if (health === 'critical') this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
    }
    this.item.tooltip = tip;
  }

  override dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    super.dispose();
  }
}

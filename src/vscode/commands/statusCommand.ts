// `memory.showStatus` (R-UI-4, R-RECALL-10): the engine card figures as data, plus a one-line
// message for the person who ran it from the palette. Counts and switches only, never memory text.
import * as vscode from 'vscode';
import type { EngineSettings } from '../../engine/settings';
import type { Logger } from '../../engine/host';
import type { EngineStatus } from '../../engine/engine';
import { describeSkips, formatBytes } from '../../engine/maintain/health';
import { describeGate } from '../../engine/write/poisonGate';
import { describeEmbedder } from '../embedderController';
import { type EngineHost } from '../engineHost';
import { agentsLine, type AgentStatus } from '../agents/connectAgents';
import type { ProjectStatus } from '../config';
import { describeProjectVault, type ProjectVaultState } from '../project/projectVaultController';
import { errorCode } from '../../engine/errors';

export const SHOW_STATUS_COMMAND = 'memory.showStatus';

export interface StatusFigures {
  enabled: boolean;
  /** Embedder id in use, or null when the engine is not open. */
  embedder: string | null;
  /** Why that embedder (model-loaded, model-missing, download-declined, …), or null when not open. */
  embedderReason: string | null;
  /** Items of every kind in the store. */
  items: number;
  rawRecord: boolean;
  captureToolResults: boolean;
  captureThinking: boolean;
  includeSecrets: boolean;
  recallBudgetChars: number;
  vaultPath: string;
  /** The engine's full status card; absent while it is opening or when it failed to open. */
  card?: EngineStatus;
  /** Error code when the engine could not open (or its card could not be read). */
  error?: string;
  /** Agents connected through hooks and when each last recorded a turn. */
  agents?: AgentStatus[];
  /** The project in use, where it came from, a workspace-provided one awaiting confirmation, Restricted Mode. */
  project?: ProjectStatus;
  /** The repository's project vault (issue #15): attached with its counts, or why not. */
  projectVault?: ProjectVaultState;
}

/** The engine's own figures when it is open; settings alone (plus the error) otherwise. */
export async function collectStatusFigures(host: EngineHost, settings: EngineSettings, vaultPath: string, project?: ProjectStatus): Promise<StatusFigures> {
  const base: StatusFigures = {
    project,
    enabled: settings.enabled,
    embedder: null,
    embedderReason: null,
    items: 0,
    rawRecord: settings.l0Enabled,
    captureToolResults: settings.l0CaptureToolResults,
    captureThinking: settings.l0CaptureThinking,
    includeSecrets: settings.recallIncludeSecrets,
    recallBudgetChars: settings.indexBudgetChars,
    vaultPath,
  };
  let engine;
  try {
    engine = await host.get();
  } catch (e) {
    return { ...base, error: errorCode(e, 'E_INTERNAL') };
  }
  base.vaultPath = engine.vaultDir;
  base.items = engine.itemCount();
  try {
    const card = engine.status();
    return {
      ...base,
      card,
      enabled: card.enabled,
      embedder: card.embedder.id,
      embedderReason: card.embedder.reason,
      items: Object.values(card.items).reduce((a, b) => a + b, 0),
      rawRecord: card.rawRecord.enabled,
      captureToolResults: card.switches.captureToolResults,
      captureThinking: card.switches.captureThinking,
      includeSecrets: card.switches.includeSecrets,
      recallBudgetChars: card.recallBudgetChars,
    };
  } catch (e) {
    return { ...base, embedder: engine.embedderId, error: errorCode(e, 'E_INTERNAL') };
  }
}

export function statusLine(s: StatusFigures): string {
  const trust = projectNotes(s.project).map((n) => ` · ${n}`).join('');
  if (s.error && !s.card) return `Memory is ${s.enabled ? 'on' : 'off'} · store unavailable (${s.error})${trust}`;
  const h = s.card?.health;
  const health = h ? ` · health ${h.level} (${formatBytes(h.footprint.memoryBytes)} in RAM, ${formatBytes(h.footprint.diskBytes)} on disk)` : '';
  const embedder = s.card ? describeEmbedder(s.card.embedder) : (s.embedder ?? 'off');
  const skipped = s.card ? ` · save filter skipped ${describeSkips(s.card.skips)}` : '';
  const agents = s.agents ? ` · ${agentsLine(s.agents)}` : '';
  const gate = s.card?.gate ? ` · poison gate ${describeGate(s.card.gate)}` : '';
  const team = s.projectVault && !(s.projectVault.state === 'off' && s.projectVault.reason === 'engine') ? ` · ${describeProjectVault(s.projectVault)}` : '';
  return `Memory is ${s.enabled ? 'on' : 'off'} · ${s.items} items · embedder ${embedder}${health}${skipped}${gate}${agents}${team}${trust}`;
}

/** One sentence each for Restricted Mode and a workspace-provided project awaiting confirmation (issue #12). */
export function projectNotes(p: ProjectStatus | undefined): string[] {
  if (!p) return [];
  const out: string[] = [];
  if (p.restricted) out.push('Restricted Mode: answering from your own memory; nothing is loaded from this workspace');
  if (p.pending?.projectId) out.push(`workspace asks for project "${p.pending.projectId}" (not used until you confirm)`);
  if (p.pending?.projectType) out.push(`workspace asks for project type "${p.pending.projectType}" (not used until you confirm)`);
  return out;
}

export function registerStatusCommand(
  context: vscode.ExtensionContext,
  deps: { settings: () => EngineSettings; vaultPath: () => string; logger: Logger; host: EngineHost; agents?: () => AgentStatus[]; project?: () => ProjectStatus; projectVault?: () => ProjectVaultState },
): void {
  context.subscriptions.push(vscode.commands.registerCommand(SHOW_STATUS_COMMAND, async () => {
    const figures = await collectStatusFigures(deps.host, deps.settings(), deps.vaultPath(), deps.project?.());
    if (deps.agents) { try { figures.agents = deps.agents(); } catch { /* status without agents */ } }
    if (deps.projectVault) figures.projectVault = deps.projectVault();
    deps.logger.info('status.shown', { items: figures.items, enabled: figures.enabled, error: figures.error ?? '', restricted: !!figures.project?.restricted });
    // Not awaited: the message resolves only when dismissed, and callers want the figures now.
    void vscode.window.showInformationMessage(statusLine(figures));
    return figures;
  }));
}

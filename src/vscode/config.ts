// Typed getters for the `memory.*` settings (SPEC §10). The only place that calls
// getConfiguration: the engine receives plain EngineSettings. A value of the wrong type
// falls back to its default and is reported, so a typo in settings.json never breaks activation.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { DEFAULT_SETTINGS, type EmbedderDownload, type EngineSettings, type LocalModelSetting } from '../engine/settings';
import type { Logger } from '../engine/host';

export const SECTION = 'memory';

/** EngineSettings field → setting key under `memory.` (package.json contributes the same keys). */
export const SETTING_KEYS: Readonly<Record<keyof EngineSettings, string>> = Object.freeze({
  enabled: 'enabled',
  embedderModel: 'embedder.model',
  embedderDownload: 'embedder.download',
  projectId: 'projectId',
  projectType: 'projectType',
  backgroundModel: 'backgroundModel',
  localModels: 'localModels',
  recallTopK: 'recall.topK',
  recallMinScore: 'recall.minScore',
  recallIncludeSecrets: 'recall.includeSecrets',
  indexBudgetChars: 'index.budgetChars',
  saveMinChars: 'save.minChars',
  saveFootnoteRatio: 'save.footnoteRatio',
  saveCodeRatio: 'save.codeRatio',
  saveDedupLookback: 'save.dedupLookback',
  saveDedupThreshold: 'save.dedupThreshold',
  captureEnabled: 'capture.enabled',
  captureMinUserChars: 'capture.minUserChars',
  captureMaxPerConversation: 'capture.maxPerConversation',
  captureMaxInputChars: 'capture.maxInputChars',
  l0Enabled: 'l0.enabled',
  l0CaptureToolResults: 'l0.captureToolResults',
  l0CaptureThinking: 'l0.captureThinking',
  l0ToolResultMaxBytes: 'l0.toolResultMaxBytes',
  healthEveryNTurns: 'health.everyNTurns',
  healthWarnBytes: 'health.warnBytes',
  healthCritBytes: 'health.critBytes',
  workingTtlHours: 'working.ttlHours',
  reflectionEnabled: 'reflection.enabled',
  reflectionHour: 'reflection.hour',
  consolidationNightly: 'consolidation.nightly',
  toolsMaxCallsPerTurn: 'tools.maxCallsPerTurn',
});

const DOWNLOAD_MODES: readonly EmbedderDownload[] = ['ask', 'always', 'never'];

function isLocalModel(v: unknown): v is LocalModelSetting {
  if (typeof v !== 'object' || v === null) return false;
  const m = v as Record<string, unknown>;
  return typeof m.name === 'string' && typeof m.baseUrl === 'string' && typeof m.model === 'string'
    && (m.contextWindow === undefined || (typeof m.contextWindow === 'number' && m.contextWindow > 0));
}

function valid(field: keyof EngineSettings, value: unknown): boolean {
  const def = DEFAULT_SETTINGS[field];
  if (field === 'embedderDownload') return DOWNLOAD_MODES.includes(value as EmbedderDownload);
  if (field === 'localModels') return Array.isArray(value) && value.every(isLocalModel);
  if (typeof def === 'number') return typeof value === 'number' && Number.isFinite(value) && value >= 0;
  return typeof value === typeof def;
}

/** Reads every engine setting; invalid values fall back to the default and are logged by key only. */
export function readEngineSettings(logger?: Logger): EngineSettings {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  const out = { ...DEFAULT_SETTINGS } as Record<keyof EngineSettings, unknown>;
  for (const field of Object.keys(SETTING_KEYS) as (keyof EngineSettings)[]) {
    const key = SETTING_KEYS[field];
    const value = cfg.get<unknown>(key);
    if (value === undefined) continue;
    if (valid(field, value)) out[field] = value;
    else logger?.warn('settings.invalid', { key: `${SECTION}.${key}`, fallback: 'default' });
  }
  return out as unknown as EngineSettings;
}

/** `memory.vaultPath`; empty means `<global storage>/vault` (SPEC §10). */
export function readVaultPath(globalStorage: vscode.Uri): string {
  const configured = vscode.workspace.getConfiguration(SECTION).get<string>('vaultPath', '').trim();
  return configured || vscode.Uri.joinPath(globalStorage, 'vault').fsPath;
}

/** Fires when any `memory.*` setting changes, so settings apply without a reload (R-UI-8). */
export function onDidChangeSettings(listener: () => void): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration(SECTION)) listener();
  });
}

/** The project a chat turn belongs to: `memory.projectId`, else the first workspace folder's name. */
export interface ProjectContext {
  project?: string;
  projectType?: string;
}

/**
 * `memory.projectId` / `memory.projectType` (SPEC §10): empty id = derived from the workspace: its first
 * folder's name plus a short hash of what identifies the repository (the git `origin` URL, so every clone
 * of one repository shares its memory; else the folder's location) — two different folders that happen to
 * share a name never see each other's memory. Empty type = none. No workspace → no project.
 */
export function readProjectContext(): ProjectContext {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  const configured = cleanProjectId(cfg.get<string>('projectId', '') ?? '');
  const folder = vscode.workspace.workspaceFolders?.[0];
  const project = configured || (folder ? derivedProjectId(folder.name, folder.uri) : undefined);
  const projectType = cleanProjectId(cfg.get<string>('projectType', '') ?? '') || undefined;
  return { project, projectType };
}

function cleanProjectId(s: string): string {
  return s.trim().toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '').slice(0, 64);
}

const derivedIds = new Map<string, string>();

/** `<folder name>-<6 hex>`; the hash covers the git origin URL when there is one, else the folder URI. */
export function derivedProjectId(name: string, uri: vscode.Uri): string {
  const key = uri.toString();
  let id = derivedIds.get(key);
  if (id) return id;
  let identity = key;
  if (uri.scheme === 'file') {
    try {
      const gitConfig = readFileSync(join(uri.fsPath, '.git', 'config'), 'utf8');
      const origin = /\[remote "origin"\][^[]*?url\s*=\s*(\S+)/.exec(gitConfig)?.[1];
      if (origin) identity = origin.replace(/\.git$/, '').replace(/^[a-z]+:\/\/([^@/]+@)?/i, '').replace(/^[^@]+@([^:]+):/, '$1/');
    } catch { /* not a git repository: the folder's location identifies it */ }
  }
  id = `${cleanProjectId(name) || 'workspace'}-${createHash('sha256').update(identity).digest('hex').slice(0, 6)}`;
  derivedIds.set(key, id);
  return id;
}

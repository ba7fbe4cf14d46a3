// Engine settings: every threshold from SPEC §10, as plain values. The VS Code side reads them
// in src/vscode/config.ts and hands them over; the CLI and tests use the defaults.

export type EmbedderDownload = 'ask' | 'always' | 'never';

export interface LocalModelSetting {
  name: string;
  baseUrl: string;
  model: string;
  contextWindow?: number;
}

export interface EngineSettings {
  enabled: boolean;
  embedderModel: string;
  embedderDownload: EmbedderDownload;
  projectId: string;
  projectType: string;
  backgroundModel: string;
  localModels: LocalModelSetting[];
  recallTopK: number;
  recallMinScore: number;
  recallIncludeSecrets: boolean;
  indexBudgetChars: number;
  saveMinChars: number;
  saveFootnoteRatio: number;
  saveCodeRatio: number;
  saveDedupLookback: number;
  saveDedupThreshold: number;
  captureEnabled: boolean;
  captureMinUserChars: number;
  captureMaxPerConversation: number;
  captureMaxInputChars: number;
  l0Enabled: boolean;
  l0CaptureToolResults: boolean;
  l0CaptureThinking: boolean;
  l0ToolResultMaxBytes: number;
  healthEveryNTurns: number;
  healthWarnBytes: number;
  healthCritBytes: number;
  workingTtlHours: number;
  reflectionEnabled: boolean;
  /** Local hour from which the daily briefing is written (R-MAINT-5). */
  reflectionHour: number;
  /** Run consolidation (R-MAINT-1) once a night, after 03:00 local time (not in SPEC §10; default off). */
  consolidationNightly: boolean;
  toolsMaxCallsPerTurn: number;
}

export const DEFAULT_SETTINGS: Readonly<EngineSettings> = Object.freeze({
  enabled: true,
  embedderModel: 'Xenova/multilingual-e5-small',
  embedderDownload: 'ask',
  projectId: '',
  projectType: '',
  backgroundModel: '',
  localModels: [],
  recallTopK: 5,
  recallMinScore: 0.6,
  recallIncludeSecrets: false,
  indexBudgetChars: 2400,
  saveMinChars: 50,
  saveFootnoteRatio: 0.7,
  saveCodeRatio: 0.8,
  saveDedupLookback: 3,
  saveDedupThreshold: 0.85,
  captureEnabled: true,
  captureMinUserChars: 40,
  captureMaxPerConversation: 20,
  captureMaxInputChars: 4000,
  l0Enabled: true,
  l0CaptureToolResults: false,
  l0CaptureThinking: false,
  l0ToolResultMaxBytes: 8192,
  healthEveryNTurns: 50,
  healthWarnBytes: 268435456,
  healthCritBytes: 536870912,
  workingTtlHours: 24,
  reflectionEnabled: false,
  reflectionHour: 7,
  consolidationNightly: false,
  toolsMaxCallsPerTurn: 3,
});

export function withDefaults(partial?: Partial<EngineSettings>): EngineSettings {
  return { ...DEFAULT_SETTINGS, ...(partial ?? {}) };
}

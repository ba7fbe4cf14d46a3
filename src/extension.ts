// Composition root: builds the engine host and registers each surface. Holds no memory logic.
// Activation stays fast: the engine opens in the background (EngineHost.start). A store that cannot
// open (E_SCHEMA_NEWER, E_WASM_MISSING, …) reaches the user as a message and the log while the views,
// commands and status bar stay up. Only a failure of the UI wiring itself marks activation failed.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { OutputChannelLogger } from './vscode/log';
import { onDidChangeSettings, ProjectScope, readEngineSettings, readUserLocalModels, readVaultPath, type ProjectContext, type ProjectStatus } from './vscode/config';
import { registerAddLocalModelCommand, registerRemoveLocalModelCommand } from './vscode/bridge/addLocalModelCommand';
import { LocalModelKeys } from './vscode/bridge/localModelKeys';
import { LOCAL_VENDOR, LocalModelProvider } from './vscode/bridge/localModelProvider';
import { MemoryParticipant } from './vscode/chat/memoryParticipant';
import { TurnRegistry } from './vscode/chat/turnRegistry';
import { registerMemoryCommands } from './vscode/commands/memoryCommands';
import { registerQuarantineCommands } from './vscode/commands/quarantineCommands';
import { registerConsolidateCommand } from './vscode/commands/consolidateCommand';
import { registerReflectCommand } from './vscode/commands/reflectCommand';
import { MEMORY_SCHEME, MemoryDocumentProvider } from './vscode/commands/memoryDocuments';
import { createCallBudget, registerMemoryTools } from './vscode/tools/registerMemoryTools';
import { registerStatusCommand } from './vscode/commands/statusCommand';
import { agentRows, registerAgentHooks, type AgentHooks } from './vscode/agents/connectAgents';
import { registerVaultCommands } from './vscode/commands/vaultCommands';
import { registerProjectVaultCommands } from './vscode/commands/projectVaultCommands';
import { ProjectVaultController } from './vscode/project/projectVaultController';
import { EngineHost } from './vscode/engineHost';
import { EmbedderController } from './vscode/embedderController';
import { createEmbedderUi } from './vscode/embedderUi';
import { MemoryStatusBar } from './vscode/statusBar';
import { DashboardPanel, registerDashboard } from './vscode/dashboard/dashboardPanel';
import { registerVaultViews, type VaultViews } from './vscode/views/vaultTree';
import { MemoryLanguageClient } from './vscode/language/memoryLanguageClient';
import type { MemoryEngine } from './engine/engine';
import type { EngineSettings } from './engine/settings';
import { isMemoryError } from './engine/errors';
import { createMemoryApi, type MemoryApiV1 } from './vscode/extensionApi';
import { createSaveBudget } from './engine/write/agentSave';

/**
 * What `activate` returns: the versioned API for other extensions (`version`, `recall`, `recordTurn`; see
 * src/vscode/extensionApi.ts and the README) plus the handles integration tests observe (no memory logic).
 */
export interface MemoryExtensionApi extends MemoryApiV1 {
  readonly views: VaultViews;
  readonly host: EngineHost;
  readonly statusBar: MemoryStatusBar;
  settings(): EngineSettings;
  /** The open engine for the current vault (waits for an open or reopen in flight). */
  engine(): Promise<MemoryEngine>;
  /** The @memory participant (its onDidRecordTurn fires after each detached save + capture). */
  readonly participant: MemoryParticipant;
  /** The local model bridge (vendor `memory-local`). */
  readonly localModels: LocalModelProvider;
  /** Chooses the embedder from `memory.embedder.*` (weights under `<globalStorage>/models`). */
  readonly embedder: EmbedderController;
  /** The open dashboard panel, if any (opened by `memory.openDashboard`). */
  dashboard(): DashboardPanel | undefined;
  /** The agent hooks: launcher, local socket, Connect / Disconnect Agents. */
  readonly agents: AgentHooks;
  /** The project this window's memory belongs to, and where it came from (status). */
  project(): ProjectContext;
  projectStatus(): ProjectStatus;
  /** Resolves once the project id is derived (the git origin read). */
  projectReady(): Promise<void>;
  /** The vault language client (its `current` is undefined while no server runs). */
  readonly language: MemoryLanguageClient;
  /** The repository's project vault (issue #15): attached, or why not. */
  readonly projectVault: ProjectVaultController;
}

export const CONFIRM_WORKSPACE_PROJECT_COMMAND = 'memory.confirmWorkspaceProject';

let host: EngineHost | undefined;
let chatParticipant: MemoryParticipant | undefined;
let agentHooks: AgentHooks | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<MemoryExtensionApi> {
  const logger = new OutputChannelLogger();
  context.subscriptions.push(logger);
  try {
    let settings = readEngineSettings(logger);
    // The project identity: derived from the first folder (its git origin, read through vscode.workspace.fs);
    // a workspace-provided id waits for confirmation; nothing from the workspace in Restricted Mode.
    const projectScope = new ProjectScope(context.globalState, logger);
    context.subscriptions.push(projectScope);
    const projectReady = projectScope.refresh().catch(() => undefined);
    const vaultPath = () => readVaultPath(context.globalStorageUri);
    const engineHost = new EngineHost({
      storeDir: context.globalStorageUri.fsPath, vaultDir: vaultPath, settings: () => settings, logger,
      extensionPath: context.extensionPath,
    });
    host = engineHost;
    context.subscriptions.push(engineHost);

    // The repository's project vault (issue #15): attached after each engine open, never in Restricted Mode.
    const projectVault = new ProjectVaultController({ host: engineHost, logger, project: () => projectScope.current() });
    context.subscriptions.push(projectVault);

    const agents = registerAgentHooks(context, { host: engineHost, logger, settings: () => settings, vaultPath, project: () => projectScope.current() });
    agentHooks = agents;
    registerStatusCommand(context, {
      settings: () => settings, vaultPath, logger, host: engineHost, agents: () => agents.status(), project: () => projectScope.status(),
      projectVault: () => projectVault.state(),
    });
    registerVaultCommands(context, engineHost, logger);
    registerProjectVaultCommands(context, { host: engineHost, logger, projectVault, project: () => projectScope.current() });
    const views = registerVaultViews(context, engineHost, logger, projectVault);
    const statusBar = new MemoryStatusBar(engineHost, () => settings, logger, () => projectScope.status());
    context.subscriptions.push(statusBar);

    // The embedder: chosen in the background after each engine open, and again when memory.embedder.* changes.
    const embedder = new EmbedderController({
      engine: () => engineHost.get(), settings: () => settings, logger, answers: context.globalState, ui: createEmbedderUi(),
      modelsDir: vscode.Uri.joinPath(context.globalStorageUri, 'models').fsPath,
    });
    context.subscriptions.push(embedder, engineHost.onDidOpen(() => { void embedder.evaluate(); }),
      { dispose: embedder.onDidChange(() => statusBar.update()).dispose });

    // Chat: the local model bridge, the memory tools, the @memory participant and their commands.
    const project = () => projectScope.current();
    // API keys of local model servers live in SecretStorage; the bridge sends them as bearer tokens.
    const keys = new LocalModelKeys(context.secrets, context.globalState, logger);
    const localModels = new LocalModelProvider(() => settings.localModels, logger, (e) => keys.get(e));
    context.subscriptions.push(localModels, vscode.lm.registerLanguageModelChatProvider(LOCAL_VENDOR, localModels));
    registerAddLocalModelCommand(context, logger, keys);
    registerRemoveLocalModelCommand(context, logger, keys);
    // Confirms the workspace's pending project id/type for this workspace; `{ revoke: true }` forgets the confirmation.
    context.subscriptions.push(vscode.commands.registerCommand(CONFIRM_WORKSPACE_PROJECT_COMMAND, async (arg?: { revoke?: boolean }) => {
      try {
        if (arg?.revoke) return await projectScope.revoke();
        const before = projectScope.status();
        const after = await projectScope.confirm();
        void vscode.window.showInformationMessage(before.pending
          ? `Memory now uses ${after.project ? `project "${after.project}"` : 'the workspace\'s project setting'} in this workspace.`
          : 'Memory: this workspace\'s settings ask for no other project.');
        return after;
      } catch (e) {
        void vscode.window.showErrorMessage(`Memory: ${isMemoryError(e) ? e.message : 'the project setting could not be confirmed'}`);
        return undefined;
      }
    }));
    const turns = new TurnRegistry();
    registerMemoryTools(context, {
      host: engineHost, turns, logger, project, budget: createCallBudget(() => settings.toolsMaxCallsPerTurn), saveBudget: createSaveBudget(),
      enabled: () => settings.enabled,
    });
    const participant = new MemoryParticipant({ host: engineHost, turns, logger, settings: () => settings, project }, context.extensionUri);
    chatParticipant = participant;
    context.subscriptions.push(participant);
    const documents = new MemoryDocumentProvider(engineHost, project);
    context.subscriptions.push(documents, vscode.workspace.registerTextDocumentContentProvider(MEMORY_SCHEME, documents));
    registerMemoryCommands(context, { host: engineHost, logger, project, documents });
    registerQuarantineCommands(context, { host: engineHost, logger });
    registerConsolidateCommand(context, { host: engineHost, logger, settings: () => settings });
    registerReflectCommand(context, { host: engineHost, logger, settings: () => settings });
    registerDashboard(context, { host: engineHost, settings: () => settings, logger, agents: () => agentRows(agents.status()), projectVault: () => projectVault.state() });
    const language = new MemoryLanguageClient({ host: engineHost, logger, vaultPath, serverModule: context.asAbsolutePath(path.join('dist', 'server.js')) });
    context.subscriptions.push(language);

    context.subscriptions.push(onDidChangeSettings(() => {
      const before = settings;
      settings = readEngineSettings(logger);
      if (before.embedderModel !== settings.embedderModel || before.embedderDownload !== settings.embedderDownload) void embedder.evaluate();
      engineHost.updateSettings(settings);
      statusBar.update();
      localModels.refresh();
      participant.settingsChanged();
      logger.info('settings.changed');
      void projectVault.refresh();
      void keys.prune(readUserLocalModels()).catch(() => undefined);
      // A new vault folder means a new engine: get() reopens when the vault differs.
      const current = engineHost.current;
      if (current && current.vaultDir !== path.resolve(vaultPath())) engineHost.start();
    }));

    // Trust granted or folders changed: derive the project again; the status says what changed.
    context.subscriptions.push(
      vscode.workspace.onDidGrantWorkspaceTrust(() => { projectScope.reset(); statusBar.update(); void projectVault.refresh(); }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => projectScope.reset()),
      projectScope.onDidChange(() => { statusBar.update(); void projectVault.refresh(); }),
    );

    // The engine opens once the project id is known (reading `.git/config` is bounded to 2 s), so the first
    // turns never file memory under a provisional id.
    void projectReady.then(() => engineHost.start());
    logger.info('activated', { version: String(context.extension.packageJSON.version ?? ''), restricted: !vscode.workspace.isTrusted });
    const api = createMemoryApi({ host: engineHost, enabled: () => settings.enabled, project, logger });
    return { version: api.version, recall: api.recall, recordTurn: api.recordTurn, views, host: engineHost, statusBar, settings: () => settings, engine: () => engineHost.get(), participant, localModels, embedder,
      dashboard: () => DashboardPanel.current, agents, project, projectStatus: () => projectScope.status(), projectReady: () => projectReady, language, projectVault };
  } catch (err) {
    const code = isMemoryError(err) ? err.code : 'E_INTERNAL';
    logger.error('activation.failed', { code });
    void vscode.window.showErrorMessage(`Memory could not start (${code}). See the "Memory" output for details.`);
    throw err;
  }
}

/** Flushes buffers and closes the store (compaction) before the extension host exits. */
export async function deactivate(): Promise<void> {
  const h = host;
  host = undefined;
  // Saves still in flight reach the store before it closes.
  await chatParticipant?.drain().catch(() => undefined);
  chatParticipant = undefined;
  await agentHooks?.drain().catch(() => undefined);
  agentHooks = undefined;
  await h?.close();
}

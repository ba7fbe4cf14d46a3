// Messages shared by the extension, the webview and the language server.
// No `vscode`, no DOM, no Node imports here.

export interface ReadyMessage { type: 'ready' }
export type WebviewToHost = ReadyMessage;
export type HostToWebview = { type: 'status'; status: Record<string, unknown> };

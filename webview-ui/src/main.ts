// Dashboard webview (browser bundle). Imports only src/protocol.
import type { HostToWebview, WebviewToHost } from '../../src/protocol/messages';

declare function acquireVsCodeApi(): { postMessage(m: WebviewToHost): void };
const api = acquireVsCodeApi();
window.addEventListener('message', (e: MessageEvent<HostToWebview>) => {
  const root = document.getElementById('root');
  if (root && e.data.type === 'status') root.textContent = 'Memory';
});
api.postMessage({ type: 'ready' });

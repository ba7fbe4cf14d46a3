// Entry point of the vault language server bundle (dist/server.js), started by the extension over
// node IPC (src/vscode/language/). The transport comes from the command line (--node-ipc, --stdio).
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { serveMemoryLanguage } from './memoryLanguageServer';

serveMemoryLanguage(createConnection(ProposedFeatures.all));

// A fake extension side for the vault language server: speaks JSON-RPC to the server (in this
// process over streams, or a spawned dist/server.js over stdio), answers `memory/notes` and
// `memory/describe`, and records diagnostics and log lines so tests wait on events, never on time.
import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import * as path from 'node:path';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import { createConnection } from 'vscode-languageserver/node';
import type { Diagnostic } from 'vscode-languageserver/node';
import { serveMemoryLanguage } from '../../../src/server/memoryLanguageServer';
import { DESCRIBE_REQUEST, NOTES_CHANGED_NOTIFICATION, NOTES_REQUEST, type DescribeResponse, type NoteInfo } from '../../../src/protocol/language';

type Waiter = { accept: () => boolean; resolve: () => void };

export class FakeExtension {
  notes: NoteInfo[] = [];
  describe: (id: string) => DescribeResponse = () => null;
  readonly describeCalls: string[] = [];
  readonly logs: string[] = [];
  readonly diagnostics = new Map<string, Diagnostic[]>();
  private waiters: Waiter[] = [];
  private versions = new Map<string, number>();
  private child: ChildProcess | undefined;

  private constructor(readonly conn: MessageConnection, readonly vaultDir: string) {
    conn.onRequest(NOTES_REQUEST, () => this.notes);
    conn.onRequest(DESCRIBE_REQUEST, (p: { id: string }) => { this.describeCalls.push(p.id); return this.describe(p.id); });
    conn.onNotification('window/logMessage', (p: { message: string }) => { this.logs.push(p.message); this.poke(); });
    conn.onNotification('textDocument/publishDiagnostics', (p: { uri: string; diagnostics: Diagnostic[] }) => {
      this.diagnostics.set(p.uri, p.diagnostics);
      this.poke();
    });
    conn.listen();
  }

  /** The server in this process, over a pair of in-memory streams. */
  static inProcess(vaultDir: string): FakeExtension {
    const toServer = new PassThrough();
    const toClient = new PassThrough();
    serveMemoryLanguage(createConnection(new StreamMessageReader(toServer), new StreamMessageWriter(toClient)));
    return new FakeExtension(createMessageConnection(new StreamMessageReader(toClient), new StreamMessageWriter(toServer)), vaultDir);
  }

  /** The bundled server (dist/server.js) in its own process, over stdio. */
  static spawned(vaultDir: string, serverJs: string): FakeExtension {
    const child = spawn(process.execPath, [serverJs, '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
    const fake = new FakeExtension(createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!)), vaultDir);
    fake.child = child;
    return fake;
  }

  private poke(): void {
    for (const w of [...this.waiters]) if (w.accept()) { this.waiters.splice(this.waiters.indexOf(w), 1); w.resolve(); }
  }

  /** Resolves once `accept` holds (checked now and after every diagnostics or log message). */
  until(accept: () => boolean): Promise<void> {
    if (accept()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ accept, resolve }));
  }

  /** Initializes the server and waits for its first note list to be loaded. */
  async start(): Promise<void> {
    const loaded = this.logs.filter((l) => l.startsWith('notes.loaded')).length;
    await this.conn.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {}, initializationOptions: { vaultDir: this.vaultDir } });
    await this.conn.sendNotification('initialized', {});
    await this.until(() => this.logs.filter((l) => l.startsWith('notes.loaded')).length > loaded);
  }

  /** Tells the server the notes changed and waits for it to have reloaded them. */
  async notesChanged(): Promise<void> {
    const loaded = this.logs.filter((l) => l.startsWith('notes.loaded')).length;
    await this.conn.sendNotification(NOTES_CHANGED_NOTIFICATION);
    await this.until(() => this.logs.filter((l) => l.startsWith('notes.loaded')).length > loaded);
  }

  uri(relPath: string): string { return pathToFileURL(path.join(this.vaultDir, ...relPath.split('/'))).href; }

  async open(relPath: string, text: string): Promise<string> {
    const uri = this.uri(relPath);
    this.versions.set(uri, 1);
    await this.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'markdown', version: 1, text } });
    return uri;
  }

  async change(relPath: string, text: string): Promise<void> {
    const uri = this.uri(relPath);
    const version = (this.versions.get(uri) ?? 1) + 1;
    this.versions.set(uri, version);
    await this.conn.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] });
  }

  /** Waits for diagnostics of `relPath` that satisfy `accept`. */
  async diagnosticsOf(relPath: string, accept: (d: Diagnostic[]) => boolean): Promise<Diagnostic[]> {
    const uri = this.uri(relPath);
    await this.until(() => { const d = this.diagnostics.get(uri); return d !== undefined && accept(d); });
    return this.diagnostics.get(uri)!;
  }

  request<T>(method: string, relPath: string, line: number, character: number, extra: Record<string, unknown> = {}): Promise<T> {
    return this.conn.sendRequest(method, { textDocument: { uri: this.uri(relPath) }, position: { line, character }, ...extra }) as Promise<T>;
  }

  async dispose(): Promise<void> {
    if (this.child) {
      const exited = new Promise((r) => this.child!.once('exit', r));
      await this.conn.sendRequest('shutdown').catch(() => undefined);
      await this.conn.sendNotification('exit').catch(() => undefined);
      await exited;
    }
    this.conn.dispose();
  }
}

// A cloned repository must not steer memory (issue #12), in a real VS Code. The runner opens a hostile workspace:
// its .vscode/settings.json sets memory.localModels + backgroundModel (pointing at a model server the runner hosts
// and logs), memory.vaultPath (inside the workspace), memory.recall.includeSecrets and a foreign memory.projectId.
// Each test shows the workspace value has no effect and the user-level equivalent still works. Also: a local model
// server's API key round trip (SecretStorage → bearer token, never in settings or logs, deleted on removal), and
// workspace files read through vscode.workspace.fs from a remote-like file system provider this test registers.
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { MemoryExtensionApi } from '../../src/extension';
import { derivedProjectId, gitOriginOf, SETTING_KEYS } from '../../src/vscode/config';
import type { EngineSettings } from '../../src/engine/settings';
import type { StatusFigures } from '../../src/vscode/commands/statusCommand';
import { FakeOpenAiServer, sseOf, textChunk, type RecordedRequest, type Reply } from '../unit/model/fakeOpenAiServer';
import { activated, userSettingsLoaded } from './api';
import { isCapture, lastUser, VENDOR } from './chatHarness';
import { until, waitForEvent } from './waitFor';

const HOSTILE_LOG = process.env.MEMORY_TEST_HOSTILE_LOG ?? '';
const HOSTILE_VAULT = process.env.MEMORY_TEST_HOSTILE_VAULT ?? '';
const HOSTILE_URL = process.env.MEMORY_TEST_HOSTILE_URL ?? '';
const USER_VAULT = process.env.MEMORY_TEST_VAULT ?? '';

/** Every request the workspace's model server received (the runner appends one JSON line per request). */
function hostileRequests(): { method: string; url: string; body: string }[] {
  const text = readFileSync(HOSTILE_LOG, 'utf8');
  return text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { method: string; url: string; body: string });
}

/** Every file under `dir` (VS Code's logs), for the "never logged" check. */
function filesUnder(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) filesUnder(p, out);
    else out.push(p);
  }
  return out;
}

/** Like `until`, for an asynchronous check (vscode.lm look-ups): re-checks after each event. */
function untilAsync<T>(event: vscode.Event<unknown>, check: () => Promise<T | undefined | false>, what: string, ms = 20_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let done = false;
    const attempt = async () => {
      if (done) return;
      const v = await check();
      if (!done && v !== undefined && v !== false) { done = true; clearTimeout(timer); sub.dispose(); resolve(v); }
    };
    const sub = event(() => { void attempt(); });
    const timer = setTimeout(() => { done = true; sub.dispose(); reject(new Error(`timed out after ${ms} ms waiting for ${what}`)); }, ms);
    void attempt();
  });
}

function answer(req: RecordedRequest): Reply {
  if (req.url.endsWith('/models')) return { json: { data: [{ id: 'user-model' }] } };
  const streamed = (text: string): Reply => ({ sse: sseOf([textChunk(text.slice(0, 8)), textChunk(text.slice(8), 'stop')]) });
  if (isCapture(req)) return streamed(JSON.stringify({ notes: [] }));
  return streamed(`User model answer to: ${lastUser(req).slice(-40).replace(/\s+/g, ' ')}`);
}

describe('A workspace cannot steer memory (hostile .vscode/settings.json)', function () {
  this.timeout(120_000);
  let api: MemoryExtensionApi;
  const cfg = () => vscode.workspace.getConfiguration('memory');

  before(async () => {
    assert.ok(HOSTILE_LOG && HOSTILE_VAULT && HOSTILE_URL, 'the runner opened its hostile workspace');
    api = await activated();
    await userSettingsLoaded();
    await api.projectReady();
    // The fixture really is there: VS Code sees the workspace's settings file.
    const ws = vscode.workspace.workspaceFolders?.[0];
    assert.ok(ws && existsSync(path.join(ws.uri.fsPath, '.vscode', 'settings.json')), 'the workspace carries .vscode/settings.json');
  });

  it('no engine setting takes the workspace\'s value (embedder model and download, enabled, capture, raw record, tools …)', () => {
    const settings = api.settings();
    for (const [field, key] of Object.entries(SETTING_KEYS) as [keyof EngineSettings, string][]) {
      const i = cfg().inspect(key);
      const mine = i?.globalValue !== undefined ? i.globalValue : i?.defaultValue;
      assert.deepEqual(settings[field], mine, `memory.${key} is the user's value or the default`);
    }
    assert.equal(settings.embedderModel === 'attacker/any-model' || settings.embedderDownload === 'always' || !settings.enabled, false);
  });

  it('memory.localModels + backgroundModel from the workspace: its server is not offered and receives nothing; the user\'s model answers and captures', async () => {
    assert.ok(!api.localModels.provideLanguageModelChatInformation().some((m) => m.baseUrl === HOSTILE_URL), 'the workspace\'s model is not offered');
    assert.equal(api.settings().backgroundModel, '', 'the workspace\'s background model is not used');
    assert.deepEqual((await vscode.lm.selectChatModels({ vendor: VENDOR, id: 'repo-model' })).length, 0);

    const server = await FakeOpenAiServer.start(answer);
    try {
      await cfg().update('localModels', [{ name: 'User Model', baseUrl: server.baseUrl, model: 'user-model', contextWindow: 32768 }], vscode.ConfigurationTarget.Global);
      await cfg().update('backgroundModel', `${VENDOR}/user-model`, vscode.ConfigurationTarget.Global);
      await untilAsync(vscode.lm.onDidChangeChatModels, async () => (await vscode.lm.selectChatModels({ vendor: VENDOR, id: 'user-model' })).length > 0, 'the user\'s model in vscode.lm');
      assert.equal(api.settings().backgroundModel, `${VENDOR}/user-model`, 'the user-level background model is used');

      const recorded = waitForEvent(api.participant.onDidRecordTurn, 'the turn to be saved and captured', 60_000);
      await vscode.commands.executeCommand('workbench.action.chat.newChat');
      await vscode.commands.executeCommand('workbench.action.chat.open', {
        query: '@memory our release train leaves every second Tuesday from the platform branch', blockOnResponse: true,
        modelSelector: { vendor: VENDOR, id: 'user-model' },
      });
      await recorded;
      assert.ok(server.chats.some((r) => !isCapture(r)), 'the user\'s model answered');
      assert.ok(server.chats.some(isCapture), 'capture went to the user\'s designated background model');
      assert.deepEqual(hostileRequests(), [], 'the workspace\'s model server received nothing');
    } finally {
      await cfg().update('backgroundModel', undefined, vscode.ConfigurationTarget.Global);
      await cfg().update('localModels', undefined, vscode.ConfigurationTarget.Global);
      await server.close();
    }
  });

  it('memory.vaultPath from the workspace: the vault stays where the user\'s settings put it', async () => {
    const engine = await api.engine();
    assert.equal(engine.vaultDir, path.resolve(USER_VAULT));
    // The turn above wrote the daily log: into the user's vault, nothing inside the repository.
    assert.ok(!existsSync(HOSTILE_VAULT), 'nothing was written into the workspace\'s vault folder');
    const figures = await vscode.commands.executeCommand<StatusFigures>('memory.showStatus');
    assert.equal(figures.vaultPath, path.resolve(USER_VAULT));
  });

  it('memory.recall.includeSecrets from the workspace: secret-tagged memory stays hidden; the user\'s setting still shows it', async () => {
    assert.equal(api.settings().recallIncludeSecrets, false);
    const dir = mkdtempSync(path.join(tmpdir(), 'memory-trust-'));
    const file = path.join(dir, 'keys.md');
    writeFileSync(file, '# Quokkaville staging access\n\nThe quokkaville staging api key: sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD\n');
    const loaded = await vscode.commands.executeCommand<{ secret: number; ids: string[] }>('memory.loadDocument', vscode.Uri.file(file));
    assert.equal(loaded.secret, 1, 'the section with the key is tagged as secret');
    assert.equal(loaded.ids.length, 1, 'one section: the secret one');
    const engine = await api.engine();
    const search = async () => (await engine.search('quokkaville staging api key', { project: api.project().project })).filter((h) => loaded.ids.includes(h.id));
    assert.deepEqual(await search(), [], 'the secret section is not found');
    try {
      await cfg().update('recall.includeSecrets', true, vscode.ConfigurationTarget.Global);
      await until(vscode.workspace.onDidChangeConfiguration, () => api.settings().recallIncludeSecrets, 'the user-level includeSecrets');
      assert.ok((await search()).length > 0, 'the user\'s own setting shows secret-tagged memory');
    } finally {
      await cfg().update('recall.includeSecrets', undefined, vscode.ConfigurationTarget.Global);
    }
    await until(vscode.workspace.onDidChangeConfiguration, () => !api.settings().recallIncludeSecrets, 'includeSecrets back off');
  });

  it('memory.projectId from the workspace: a foreign project is not used until the user confirms it, and status names it', async () => {
    const s = api.projectStatus();
    assert.notEqual(s.project, 'victim-project');
    assert.equal(s.source, 'derived');
    assert.equal(s.pending?.projectId, 'victim-project');
    const figures = await vscode.commands.executeCommand<StatusFigures>('memory.showStatus');
    assert.equal(figures.project?.pending?.projectId, 'victim-project', 'status shows the unconfirmed workspace project');
    const derived = s.project;

    // The user's own setting is used as before.
    await cfg().update('projectId', 'my-own-project', vscode.ConfigurationTarget.Global);
    try {
      await until(vscode.workspace.onDidChangeConfiguration, () => api.project().project === 'my-own-project', 'the user-level projectId');
    } finally {
      await cfg().update('projectId', undefined, vscode.ConfigurationTarget.Global);
    }
    await until(vscode.workspace.onDidChangeConfiguration, () => api.project().project === derived, 'the derived project again');

    // Confirmed once, the workspace's project is used (and stays associated); revoked, it is not.
    try {
      await vscode.commands.executeCommand('memory.confirmWorkspaceProject');
      assert.equal(api.project().project, 'victim-project');
      assert.equal(api.projectStatus().source, 'workspace');
      assert.equal(api.projectStatus().pending, undefined);
    } finally {
      await vscode.commands.executeCommand('memory.confirmWorkspaceProject', { revoke: true });
    }
    assert.equal(api.project().project, derived);
  });
});

describe('Local model server API key (SecretStorage → bearer token)', function () {
  this.timeout(90_000);
  const KEY = `trust-key-${Math.random().toString(36).slice(2)}-${Date.now()}`;
  const cfg = () => vscode.workspace.getConfiguration('memory');

  it('sends the key as a bearer token, keeps it out of settings and logs, binds it to the base URL, and deletes it on removal', async () => {
    const api = await activated();
    await userSettingsLoaded();
    const keyed = await FakeOpenAiServer.start((req) => (req.headers.authorization === `Bearer ${KEY}` ? answer(req) : { status: 401, json: { error: { message: 'bad key' } } }));
    const other = await FakeOpenAiServer.start(answer);
    try {
      const entry = await vscode.commands.executeCommand<{ name: string; baseUrl: string }>('memory.addLocalModel', { baseUrl: keyed.baseUrl, model: 'user-model', name: 'Keyed Model', apiKey: KEY });
      assert.ok(entry, 'the server was added (listing and the test answer needed the key)');
      assert.ok(keyed.requests.length >= 2 && keyed.requests.every((r) => r.headers.authorization === `Bearer ${KEY}`), 'every request carried the key');

      // Not in settings: neither in what VS Code holds nor in the user's settings.json on disk.
      assert.ok(!JSON.stringify(cfg().inspect('localModels')).includes(KEY), 'the key is not in memory.localModels');
      const userData = path.join(path.dirname(USER_VAULT), 'user-data');
      assert.ok(!readFileSync(path.join(userData, 'User', 'settings.json'), 'utf8').includes(KEY), 'the key is not in settings.json');

      // The bridge sends it with every chat request.
      const model = await untilAsync(vscode.lm.onDidChangeChatModels, async () => (await vscode.lm.selectChatModels({ vendor: VENDOR, id: 'keyed-model' }))[0], 'the keyed model in vscode.lm');
      const before = keyed.chats.length;
      const res = await model.sendRequest([vscode.LanguageModelChatMessage.User('hello')]);
      let text = '';
      for await (const t of res.text) text += t;
      assert.match(text, /User model answer/);
      assert.equal(keyed.chats.slice(before).at(-1)?.headers.authorization, `Bearer ${KEY}`);

      // The same name pointed at another server: the key does not follow.
      await cfg().update('localModels', [{ name: 'Keyed Model', baseUrl: other.baseUrl, model: 'user-model' }], vscode.ConfigurationTarget.Global);
      await until(vscode.workspace.onDidChangeConfiguration, () => api.settings().localModels[0]?.baseUrl === other.baseUrl, 'the moved entry');
      const moved = (await vscode.lm.selectChatModels({ vendor: VENDOR, id: 'keyed-model' }))[0];
      for await (const _ of (await moved.sendRequest([vscode.LanguageModelChatMessage.User('hi')])).text) { /* drain */ }
      assert.equal(other.chats.at(-1)?.headers.authorization, undefined, 'a key is never sent to a server it was not given for');

      // Removed: the entry goes and so does its key (re-adding the entry by hand sends no key).
      await cfg().update('localModels', [{ name: 'Keyed Model', baseUrl: keyed.baseUrl, model: 'user-model' }], vscode.ConfigurationTarget.Global);
      await until(vscode.workspace.onDidChangeConfiguration, () => api.settings().localModels[0]?.baseUrl === keyed.baseUrl, 'the entry back');
      const removed = await vscode.commands.executeCommand<{ removed: boolean }>('memory.removeLocalModel', { name: 'Keyed Model' });
      assert.equal(removed.removed, true);
      assert.deepEqual(cfg().inspect('localModels')?.globalValue, undefined);
      await cfg().update('localModels', [{ name: 'Keyed Model', baseUrl: keyed.baseUrl, model: 'user-model' }], vscode.ConfigurationTarget.Global);
      await until(vscode.workspace.onDidChangeConfiguration, () => api.settings().localModels.length === 1, 'the entry added by hand');
      const again = await untilAsync(vscode.lm.onDidChangeChatModels, async () => (await vscode.lm.selectChatModels({ vendor: VENDOR, id: 'keyed-model' }))[0], 'the re-added model');
      const n = keyed.chats.length;
      await assert.rejects(async () => { for await (const _ of (await again.sendRequest([vscode.LanguageModelChatMessage.User('hi')])).text) { /* drain */ } });
      assert.equal(keyed.chats.slice(n).at(-1)?.headers.authorization, undefined, 'the deleted key is not sent');

      // Never logged: no file of VS Code's logs (the Memory output channel included) holds the key.
      const logs = filesUnder(path.join(userData, 'logs'));
      assert.ok(logs.length > 0, 'VS Code wrote logs');
      for (const f of logs) assert.ok(!readFileSync(f, 'utf8').includes(KEY), `the key is not in ${path.basename(f)}`);
    } finally {
      await cfg().update('localModels', undefined, vscode.ConfigurationTarget.Global);
      await keyed.close();
      await other.close();
    }
  });
});

/** A remote-like file system (scheme `memtest-remote`): workspace files that are not on this machine's disk. */
class MemoryFs implements vscode.FileSystemProvider {
  private readonly files = new Map<string, Uint8Array>();
  private readonly emitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.emitter.event;
  reads = 0;

  put(p: string, text: string): void { this.files.set(p, new TextEncoder().encode(text)); }

  private isDir(p: string): boolean { return [...this.files.keys()].some((f) => f.startsWith(p.endsWith('/') ? p : `${p}/`)); }

  stat(uri: vscode.Uri): vscode.FileStat {
    const f = this.files.get(uri.path);
    if (f) return { type: vscode.FileType.File, ctime: 0, mtime: 0, size: f.byteLength };
    if (this.isDir(uri.path)) return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0 };
    throw vscode.FileSystemError.FileNotFound(uri);
  }

  readFile(uri: vscode.Uri): Uint8Array {
    const f = this.files.get(uri.path);
    if (!f) throw vscode.FileSystemError.FileNotFound(uri);
    this.reads++;
    return f;
  }

  readDirectory(): [string, vscode.FileType][] { return []; }
  watch(): vscode.Disposable { return new vscode.Disposable(() => undefined); }
  createDirectory(): void { throw vscode.FileSystemError.NoPermissions('read-only'); }
  writeFile(): void { throw vscode.FileSystemError.NoPermissions('read-only'); }
  delete(): void { throw vscode.FileSystemError.NoPermissions('read-only'); }
  rename(): void { throw vscode.FileSystemError.NoPermissions('read-only'); }
}

describe('Workspace files through vscode.workspace.fs (remote-like file system)', function () {
  this.timeout(60_000);
  const fs = new MemoryFs();
  let reg: vscode.Disposable;

  before(() => {
    fs.put('/home/dev/payments/.git/config', '[core]\n\tbare = false\n[remote "origin"]\n\turl = git@github.com:acme/payments.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n');
    fs.put('/home/dev/payments/docs/oncall.md', '# On-call guide\n\n## Paging\nPage the marmoset rota through the ops bridge.\n');
    fs.put('/home/dev/payments-wt/.git', 'gitdir: /home/dev/payments/.git/worktrees/payments-wt\n');
    fs.put('/home/dev/payments/.git/worktrees/payments-wt/commondir', '../..\n');
    fs.put('/home/dev/payments/.git/worktrees/payments-wt/HEAD', 'ref: refs/heads/feature\n');
    reg = vscode.workspace.registerFileSystemProvider('memtest-remote', fs, { isReadonly: true });
  });

  after(() => reg?.dispose());

  it('derives the project id from the git origin of a folder that is not on this disk (and of its worktree)', async () => {
    const folder = vscode.Uri.from({ scheme: 'memtest-remote', path: '/home/dev/payments' });
    assert.equal(await gitOriginOf(folder), 'github.com/acme/payments');
    assert.equal(await gitOriginOf(vscode.Uri.from({ scheme: 'memtest-remote', path: '/home/dev/payments-wt' })), 'github.com/acme/payments', 'a worktree shares its repository\'s origin');
    assert.equal(await gitOriginOf(vscode.Uri.from({ scheme: 'memtest-remote', path: '/home/dev' })), undefined, 'no repository, no origin');
    // A clone on this machine with the same origin gets the same id: memory follows the repository.
    assert.equal(derivedProjectId('payments', 'github.com/acme/payments'), derivedProjectId('payments', (await gitOriginOf(folder))!));
  });

  it('Load Document… reads a remote-like file through vscode.workspace.fs', async () => {
    const api = await activated();
    const uri = vscode.Uri.from({ scheme: 'memtest-remote', path: '/home/dev/payments/docs/oncall.md' });
    const readsBefore = fs.reads;
    const r = await vscode.commands.executeCommand<{ added: number; document: string; ids: string[] }>('memory.loadDocument', uri);
    assert.ok(r, 'the command loaded the document');
    assert.equal(r.added, 2);
    assert.equal(r.document, uri.toString(), 'the document is keyed by its URI');
    assert.ok(fs.reads > readsBefore, 'the bytes came through the file system provider');
    const hits = await (await api.engine()).search('marmoset rota paging', { project: api.project().project });
    assert.ok(hits.some((h) => r.ids.includes(h.id)));
    const again = await vscode.commands.executeCommand<{ added: number; unchanged: number }>('memory.loadDocument', uri);
    assert.equal(again.added, 0);
    assert.equal(again.unchanged, 2, 'loading it again changes nothing');
    const missing = await vscode.commands.executeCommand('memory.loadDocument', vscode.Uri.from({ scheme: 'memtest-remote', path: '/home/dev/payments/docs/none.md' }));
    assert.equal(missing, undefined, 'a missing file is refused with a message, nothing loaded');
  });
});

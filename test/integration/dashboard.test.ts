// The dashboard (R-UI-5) in a real VS Code: `memory.openDashboard` opens a webview panel, the webview's
// `ready` and requests reach the host, and the host answers with the engine's real figures. Also takes
// the README picture (media/dashboard.png). Event-driven: waits on the panel's post/render events.
import * as assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { DashboardData } from '../../src/vscode/dashboard/dashboardData';
import type { MemoryExtensionApi } from '../../src/extension';
import type { DashboardToWebview, Overview } from '../../src/protocol/dashboard';
import { OPEN_DASHBOARD_COMMAND } from '../../src/vscode/dashboard/dashboardPanel';
import { activated, EXTENSION_ID, userSettingsLoaded } from './api';
import { dashboardResponse, requestScreenshot, until } from './waitFor';
import { internals } from '../../src/engine/internals';

describe('The dashboard in VS Code', () => {
  let api: MemoryExtensionApi;

  before(async () => {
    api = await activated();
    await userSettingsLoaded();
    const engine = await api.engine();
    // A few linked notes, so the overview and the graph have something to show.
    await engine.remember({ text: 'The build uses pnpm workspaces; see [[deployment]] for the release steps.' });
    await engine.remember({ text: 'Deployment goes blue-green with a manual approval; the build notes are in [[the-build-uses-pnpm-workspaces-see-deployment-for-the-release-steps]].' });
    // Episodic items through the real write path: "key: value" lines become facts, a changed value
    // supersedes the old fact, and the flush writes the conversation summary.
    const conversation = 'dashboard-demo';
    const turns = [
      ['Which package manager does the build use, and which Node version?', 'Package manager: pnpm workspaces.\nNode version: 20 LTS.\nRelease cadence: every second Tuesday.'],
      ['We moved to Node 22 last week, and releases now ship weekly. Please note that.', 'Node version: 22 LTS.\nRelease cadence: weekly, on Tuesdays.\nDeploy strategy: blue-green with a manual approval.'],
    ];
    for (const [user, assistant] of turns) await engine.recordTurn({ conversation, user: user!, assistant: assistant! });
    await engine.flush(conversation);
    await api.participant.drain().catch(() => undefined);
  });

  after(() => { api?.dashboard()?.dispose(); });

  it('opens a webview panel and answers its overview request with the engine\'s real figures', async () => {
    await vscode.commands.executeCommand(OPEN_DASHBOARD_COMMAND);
    const panel = api.dashboard();
    assert.ok(panel, 'the command opened a dashboard panel');
    assert.equal(panel!.panel.viewType, 'memory.dashboard');
    assert.equal(panel!.panel.webview.options.enableScripts, true);
    assert.match(panel!.panel.webview.html, /default-src 'none'; script-src 'nonce-[A-Za-z0-9]+'/);

    const response = await until(panel!.onDidPost, () => panel!.responses.get('getOverview'), 'the host\'s getOverview response', 30_000);
    assert.ok(panel!.ready, 'the webview said ready before asking');
    assert.ok(panel!.lastMessage && panel!.posted >= 2, 'init and the responses were posted');
    const r = response as Extract<DashboardToWebview, { type: 'response'; ok: true; method: 'getOverview' }>;
    assert.equal(r.ok, true);
    const engine = await api.engine();
    const expected: Overview = new DashboardData(engine, () => ({ includeSecrets: api.settings().recallIncludeSecrets })).overview();
    assert.deepEqual(r.result.counts, expected.counts);
    assert.ok(r.result.counts.vaultFiles >= 2, 'the notes written above are counted');
    assert.equal(r.result.counts.vaultFiles, internals(engine).store.items.count({ kind: 'note' }) - countHidden(engine));

    const card = await until(panel!.onDidPost, () => panel!.responses.get('getEngine'), 'the engine card', 30_000);
    const status = engine.status();
    assert.equal((card as { result: { factsWithVector: string } }).result.factsWithVector, status.vectors.facts);
  });

  it('rates memory\'s own footprint, not the extension host\'s memory: ok with a few items (status bar and card)', async () => {
    const engine = await api.engine();
    const fp = engine.footprint();
    const rss = process.memoryUsage().rss;
    // A warning threshold between memory's footprint and the host's resident memory: measuring the host
    // (as health once did) would turn this yellow; measuring memory itself keeps it ok.
    const cfg = () => vscode.workspace.getConfiguration('memory');
    const warnBytes = rss > fp.memoryBytes * 2 ? Math.floor((fp.memoryBytes * 1.5 + rss) / 2) : api.settings().healthWarnBytes;
    const applied = until(vscode.workspace.onDidChangeConfiguration, () => api.settings().healthWarnBytes === warnBytes, 'the warn threshold');
    await cfg().update('health.warnBytes', warnBytes, vscode.ConfigurationTarget.Global);
    await applied;
    try {
      api.statusBar.update();
      assert.equal(api.statusBar.item.backgroundColor, undefined, 'no warning or error colour');
      const tip = api.statusBar.item.tooltip as vscode.MarkdownString;
      assert.match(tip.value, /Health: ok — [\d.]+ (MB|KB) in RAM \(database, indexes, caches\), [\d.]+ (MB|KB|bytes) on disk/);
      await vscode.commands.executeCommand(OPEN_DASHBOARD_COMMAND);
      const posted = await until(api.dashboard()!.onDidPost, () => api.dashboard()!.responses.get('getEngine'), 'the engine card', 30_000);
      assert.equal((posted as { result: { health: string } }).result.health, 'ok', 'the dashboard\'s card says ok');
      const card = new DashboardData(engine, () => ({ includeSecrets: false })).engineCard();
      assert.equal(card.health, 'ok');
      assert.equal(card.footprint.warnBytes, warnBytes);
      assert.ok(card.footprint.memoryBytes < warnBytes && card.footprint.memoryBytes > 0);
      assert.equal(card.footprint.memoryBytes, card.footprint.databaseBytes + card.footprint.keywordIndexBytes + card.footprint.vectorIndexBytes + card.footprint.cacheBytes);
      const s = await vscode.commands.executeCommand<{ card?: { health: { level: string } } }>('memory.showStatus');
      assert.equal(s.card?.health.level, 'ok');
    } finally {
      await cfg().update('health.warnBytes', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('acts on the review queue: keep and promote change the store, edit opens the note', async () => {
    const engine = await api.engine();
    await vscode.commands.executeCommand(OPEN_DASHBOARD_COMMAND);
    const panel = api.dashboard()!;
    // The conversation above superseded "Node version: 20 LTS": that fact waits in the queue.
    const superseded = engine.reviewQueue().find((e) => e.reason === 'invalidated-conflict');
    assert.ok(superseded, 'a superseded fact is in the review queue');
    let nextId = 9000;
    const act = async (id: string, action: 'keep' | 'edit' | 'promote') => {
      const reqId = nextId++;
      const answered = dashboardResponse<{ ok?: boolean; result?: { done: boolean; message: string; noteId?: string }; error?: { message: string } }>(panel, reqId, `the ${action} answer`);
      // Exactly the message the webview's button posts.
      await panel.receive({ type: 'request', id: reqId, method: 'reviewAction', params: { id, action } });
      const r = await answered;
      assert.equal(r.ok, true, r.error?.message);
      return r.result!;
    };
    const kept = await act(superseded.id, 'keep');
    assert.equal(kept.done, true);
    assert.equal(internals(engine).store.items.get(superseded.id)!.pinned, true);
    assert.ok(!engine.reviewQueue().some((e) => e.id === superseded.id), 'kept: it left the queue');

    const raw = (await engine.recordTurn({ conversation: 'review-demo', user: 'The release checklist lives in the wiki under Engineering / Releases / Checklist.', assistant: 'Noted, the checklist is in the wiki.' })).ids[0]!;
    const promoted = await act(raw, 'promote');
    assert.match(promoted.noteId ?? '', /^vt:semantic\/.+\.md$/);
    assert.ok(internals(engine).store.items.get(promoted.noteId!), 'the note is in the store');
    assert.ok(internals(engine).store.items.get(raw)!.archivedAt !== null, 'the item was archived');

    const edited = await act(promoted.noteId!, 'edit');
    assert.equal(edited.noteId, promoted.noteId);
    assert.ok(vscode.window.activeTextEditor?.document.uri.fsPath.endsWith(promoted.noteId!.slice(3)), 'the note is open for editing');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('is what a click on the status bar item opens', () => {
    const command = api.statusBar.item.command;
    assert.equal(typeof command === 'string' ? command : command?.command, OPEN_DASHBOARD_COMMAND);
  });

  it('draws the overview in the webview and takes the README screenshot', async () => {
    await vscode.commands.executeCommand(OPEN_DASHBOARD_COMMAND);
    const panel = api.dashboard()!;
    await until(panel.onDidRender, () => panel.rendered.has('overview') || undefined, 'the overview drawn in the webview', 30_000);
    // A wider dashboard for the picture: the chat panel (used by the chat tests before this) is closed.
    await vscode.commands.executeCommand('workbench.action.closeAuxiliaryBar').then(undefined, () => undefined);
    const shot = await requestScreenshot('dashboard');
    // The README's picture is refreshed on request only, so a test run never dirties the checkout.
    if (shot && process.env.MEMORY_UPDATE_SCREENSHOTS === '1') {
      const root = vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;
      copyFileSync(shot, path.join(root, 'media', 'dashboard.png'));
    }
  });
});

/** Notes the dashboard never lists: quarantined, and secret ones while includeSecrets is off. */
function countHidden(engine: Awaited<ReturnType<MemoryExtensionApi['engine']>>): number {
  return internals(engine).store.items.list({ kind: 'note' }).filter((n) => n.trust === 'quarantined' || n.secret || n.archivedAt !== null).length;
}

// The memory lifecycle in a real VS Code (issue #13): a scripted OpenAI-compatible model on 127.0.0.1 that
// echoes its whole prompt must not make recalled memory come back as new memory (no echo); forgetting removes
// the text from the daily log file. What the chat shows is read from the workbench's own chat export.
import * as assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { MemoryEngine } from '../../src/engine/engine';
import { DashboardData } from '../../src/vscode/dashboard/dashboardData';
import { parseDailyLog } from '../../src/engine/vault/dailyLog';
import { localDay } from '../../src/engine/vault/vaultLayout';
import type { MemoryExtensionApi } from '../../src/extension';
import type { TurnRecordedEvent } from '../../src/vscode/chat/memoryParticipant';
import { FakeOpenAiServer, sseOf, textChunk, type RecordedRequest, type Reply } from '../unit/model/fakeOpenAiServer';
import { activated, userSettingsLoaded } from './api';
import { ask, isCapture, lastUser, textOf, VENDOR, chatModelListed } from './chatHarness';
import { until as untilEvent, waitForEvent } from './waitFor';
import { OPEN_DASHBOARD_COMMAND } from '../../src/vscode/dashboard/dashboardPanel';
import { internals } from '../../src/engine/internals';


const ECHO = { vendor: VENDOR, id: 'echo-stub' };

/** The echo model: answers with every message of its prompt, verbatim (capture gets "no notes"). */
function answer(req: RecordedRequest): Reply {
  if (req.url.endsWith('/models')) return { json: { data: [{ id: 'echo-model' }] } };
  const streamed = (text: string): Reply => ({ sse: sseOf([textChunk(text.slice(0, 40)), textChunk(text.slice(40), 'stop')]) });
  if (isCapture(req)) return streamed(JSON.stringify({ notes: [] }));
  if (/morning briefing/.test(textOf(req))) return streamed('## What was achieved\nThe orbit service was renamed.\n## Open threads\nWhich tests cover it.\n## Suggestions\nRun the satellite tests first.');
  const msgs = (req.body?.messages ?? []) as { role: string; content?: unknown }[];
  const hasToolResult = msgs.some((m) => m.role === 'tool');
  if (/look it up in memory/.test(textOf(req)) && !hasToolResult) {
    return { sse: sseOf([{ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_l0', type: 'function', function: { name: 'memory_search', arguments: '{"query":"zanzibar cluster"}' } }] }, finish_reason: 'tool_calls' }] }]) };
  }
  if (hasToolResult) return streamed('The memory search answered; the zanzibar cluster details are in memory as recalled above, nothing else to add.');
  return streamed(textOf(req));
}

describe('The memory lifecycle in VS Code (no echo, forget)', function () {
  this.timeout(120_000);
  let api: MemoryExtensionApi;
  let engine: MemoryEngine;
  let server: FakeOpenAiServer;
  const cfg = () => vscode.workspace.getConfiguration('memory');

  async function chatTurn(query: string, opts: { newChat?: boolean } = {}): Promise<TurnRecordedEvent> {
    if (opts.newChat) await vscode.commands.executeCommand('workbench.action.chat.newChat');
    const recorded = waitForEvent(api.participant.onDidRecordTurn, `the turn "${query.slice(0, 40)}" to be saved`, 60_000);
    await vscode.commands.executeCommand('workbench.action.chat.open', { query, blockOnResponse: true, modelSelector: ECHO });
    return recorded;
  }

  async function modelListed(): Promise<void> {
    await chatModelListed(ECHO, 'the echo model');
  }

  before(async () => {
    api = await activated();
    await userSettingsLoaded();
    engine = await api.engine();
    server = await FakeOpenAiServer.start(answer);
    await cfg().update('localModels', [{ name: 'Echo Stub', baseUrl: server.baseUrl, model: 'echo-model', contextWindow: 32768 }], vscode.ConfigurationTarget.Global);
    await modelListed();
  });

  after(async () => {
    await cfg().update('localModels', undefined, vscode.ConfigurationTarget.Global);
    await server?.close();
  });

  it('a model that echoes its whole prompt adds no copy of what was recalled, and reinforces it instead', async () => {
    const seed = await engine.recordTurn({
      conversation: 'lifecycle-seed',
      user: 'For the record: the zanzibar cluster runs on Kubernetes 1.31 with Cilium networking and two node pools.',
      assistant: 'Cluster runtime: Kubernetes 1.31\nCluster networking: Cilium',
    });
    await engine.flush('lifecycle-seed');
    const copies = () => internals(engine).store.items.list({ kind: 'raw' }).filter((it) => internals(engine).writer.textOf(it).includes('runs on Kubernetes 1.31 with Cilium')).length;
    const facts = () => internals(engine).store.items.list({ kind: 'fact' }).filter((f) => /kubernetes 1\.31/i.test(f.text ?? '')).length;
    const before = { copies: copies(), facts: facts() };
    assert.equal(before.copies, 1);

    const ev = await chatTurn('@memory what does the zanzibar cluster run on?', { newChat: true });
    assert.equal(ev.error, undefined);
    const request = server.chats.filter((r) => !isCapture(r)).at(-1)!;
    assert.match(textOf(request), /<memory-context>[\s\S]*Kubernetes 1\.31/, 'the block was sent (and so echoed back)');
    assert.ok(ev.recalled.includes(seed.ids[0]!), 'the seed message was recalled');
    assert.ok(ev.saved?.reinforced?.includes(seed.ids[0]!), 'the echoed item is reinforced');
    assert.ok(ev.saved?.skipped.some((s) => s.role === 'assistant'), 'the echo is not saved as a reply');
    await engine.flush(ev.conversation);
    assert.equal(copies(), before.copies, 'no new raw item repeats the recalled text');
    assert.equal(facts(), before.facts, 'no fact is derived again from the echoed block');
    for (const it of internals(engine).store.items.list({ conversation: ev.conversation })) {
      assert.doesNotMatch(internals(engine).writer.textOf(it), /memory-context|Recalled memory/, `${it.id} holds no block text`);
    }
    const log = readFileSync(path.join(engine.vaultDir, 'logs', `${localDay(new Date(), Intl.DateTimeFormat().resolvedOptions().timeZone)}.md`), 'utf8');
    const logged = parseDailyLog(log).filter((e) => e.conversation === ev.conversation);
    assert.equal(logged.length, 2, 'the turn is in the daily log');
    for (const e of logged) assert.doesNotMatch(e.text, /memory-context|Recalled memory — data|Kubernetes 1\.31/, 'the daily log holds the turn without the block');
  });

  it('forgetting a chat message removes its text from the daily log file, after a confirmation that lists the log', async () => {
    const secret = 'The quokka-17 staging password rotates on the first Monday of each month at nine.';
    const ev = await chatTurn(`@memory please note: ${secret}`, { newChat: true });
    const userId = ev.saved?.ids[0];
    assert.ok(userId, 'the user message was saved');
    await Promise.all([api.participant.drain()]);
    const today = localDay(new Date(), Intl.DateTimeFormat().resolvedOptions().timeZone);
    const logPath = path.join(engine.vaultDir, 'logs', `${today}.md`);
    await engine.whenLogsWritten();
    assert.ok(readFileSync(logPath, 'utf8').includes('quokka-17'), 'the turn is in the daily log');
    const before = readFileSync(logPath, 'utf8');
    // /forget shows what will be removed, the daily log included, and deletes nothing yet.
    const shown = await ask(`@memory /forget ${userId}`, { model: ECHO });
    assert.match(shown.markdown, new RegExp(`daily log logs/${today}\\.md`), shown.markdown);
    assert.ok(readFileSync(logPath, 'utf8').includes('quokka-17'), 'nothing removed before the confirmation');
    const done = await vscode.commands.executeCommand<{ removed: string[] }>('memory.forget', userId, { confirmed: true });
    assert.ok(done?.removed.includes(userId!));
    const mine = (text: string, role: string) => parseDailyLog(text).filter((e) => e.conversation === ev.conversation && e.role === role);
    const after = readFileSync(logPath, 'utf8');
    assert.equal(mine(before, 'user').length, 1);
    assert.equal(mine(after, 'user').length, 0, 'the user message left the log');
    assert.equal(parseDailyLog(after).length, parseDailyLog(before).length - 1, 'only that message left the log');
    // The echo model repeated the question in its reply: that is a message of its own; forgetting it too leaves no copy.
    for (const id of ev.saved?.ids.slice(1) ?? []) await vscode.commands.executeCommand('memory.forget', id, { confirmed: true });
    assert.ok(!readFileSync(logPath, 'utf8').includes('quokka-17'), 'the log file no longer holds the text');
    const audit = internals(engine).store.audit.list({ action: 'forget' }).filter((a) => a.itemId === userId).at(-1)!;
    assert.equal(audit.itemId, userId);
    assert.ok(!JSON.stringify(audit.detail).includes('quokka'), 'the audit row holds ids only');
  });

  it('a resumed conversation gets the turns VS Code\'s history does not carry from the daily logs', async () => {
    const first = await chatTurn('@memory first turn of a conversation that another window continues', { newChat: true });
    // Another window (or a session VS Code restored without its responses) added a turn to this conversation.
    const elsewhere = 'From the other window: the lighthouse deploy target moved to the eu-north-1 region yesterday.';
    await engine.recordTurn({ conversation: first.conversation, user: elsewhere, assistant: 'Noted: lighthouse now deploys to eu-north-1.' });
    await engine.whenLogsWritten();
    const from = server.chats.length;
    const second = await chatTurn('@memory and where does it deploy now?');
    assert.equal(second.conversation, first.conversation, 'the same conversation continues');
    const sent = server.chats.slice(from).filter((r) => !isCapture(r)).at(-1)!;
    const msgs = (sent.body?.messages ?? []) as { role: string; content?: unknown }[];
    const texts = msgs.map((m) => (typeof m.content === 'string' ? m.content : ''));
    const at = texts.findIndex((x) => x === elsewhere);
    assert.ok(at > 0, 'the other window\'s turn reached the model as history');
    assert.equal(msgs[at]!.role, 'user');
    assert.equal(texts[at + 1], 'Noted: lighthouse now deploys to eu-north-1.');
    assert.equal(texts.filter((x) => x.includes('first turn of a conversation')).length >= 1, true);
    assert.equal(texts.filter((x) => x === 'first turn of a conversation that another window continues').length, 1, 'a turn VS Code already carries is not repeated');
  });

  it('records the participant\'s own tool calls and results when memory.l0.captureToolResults is on, and only then', async () => {
    const roles = (ev: TurnRecordedEvent) => internals(engine).store.items.getMany(ev.saved?.ids ?? []).map((it) => it.role);
    const off = await chatTurn('@memory please look it up in memory: what runs the zanzibar cluster?', { newChat: true });
    assert.ok(!roles(off).includes('tool'), `switch off: no tool result kept (${roles(off).join(',')})`);
    const applied = new Promise<void>((resolve) => {
      const sub = vscode.workspace.onDidChangeConfiguration(() => { if (api.settings().l0CaptureToolResults) { sub.dispose(); resolve(); } });
    });
    await cfg().update('l0.captureToolResults', true, vscode.ConfigurationTarget.Global);
    await applied;
    try {
      const on = await chatTurn('@memory please look it up in memory once more: what runs the zanzibar cluster?', { newChat: true });
      const tool = internals(engine).store.items.getMany(on.saved?.ids ?? []).find((it) => it.role === 'tool');
      assert.ok(tool, `switch on: the tool call is in the raw record (${roles(on).join(',')})`);
      assert.match(internals(engine).writer.textOf(tool), /^memory_search\(\{"query":"zanzibar cluster"\}\)\n/);
      assert.equal(tool.meta.tool, 'memory_search');
    } finally {
      await cfg().update('l0.captureToolResults', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('/status and Show Status give the save filter\'s skip counts', async () => {
    const r = await ask('@memory /status', { newChat: true, model: ECHO });
    assert.match(r.markdown, /Save filter skipped: (none|\d+ \((\w+ \d+(, )?)+\))/);
    assert.match(r.markdown, /echo \d+/, 'the echo turns above were counted');
    const shown = await vscode.commands.executeCommand<{ card?: { skips: Record<string, number> } }>('memory.showStatus');
    assert.ok((shown.card?.skips.echo ?? 0) >= 1);
  });

  it('keeps a working block for the chat, recalls it first in the next turn, and lists it in the dashboard\'s Working tab', async () => {
    const first = await chatTurn('@memory we decided to rename the orbit service to satellite; the code is in src/orbit/server.ts. Which tests cover it?', { newChat: true });
    await engine.whenLogsWritten();
    const id = `wk:${first.conversation}`;
    const wk = internals(engine).store.items.get(id);
    assert.ok(wk, 'the first turn made the working block');
    assert.match(wk.text ?? '', /^Task: we decided to rename the orbit service/);
    assert.match(wk.text ?? '', /Files: src\/orbit\/server\.ts/);
    const from = server.chats.length;
    const second = await chatTurn('@memory and what should I do next?');
    assert.equal(second.conversation, first.conversation);
    assert.ok(second.recalled.includes(id), 'the block was recalled');
    const sent = server.chats.slice(from).filter((r) => !isCapture(r)).at(-1)!;
    // The current message's block (earlier echoed replies in the history carry older blocks).
    const block = /<memory-context>\n[\s\S]*?<\/memory-context>/.exec(lastUser(sent))?.[0] ?? '';
    assert.match(block, new RegExp(`## Working memory \\[${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\]\\nTask: we decided to rename the orbit service`));
    assert.ok(block.indexOf('## Working memory') < (block.indexOf('## Recalled') < 0 ? Infinity : block.indexOf('## Recalled')), 'recalled first');
    // The dashboard's Working tab lists it.
    const rows = new DashboardData(engine, () => ({ includeSecrets: false })).working().rows;
    assert.ok(rows.some((r) => r.id === id), 'the Working tab lists the block');
  });

  it('writes the morning briefing with the scripted model and shows it as a dashboard card', async () => {
    const r = await vscode.commands.executeCommand<{ id: string; path: string; day: string; modelPart: string } | undefined>('memory.reflect', { silent: true });
    assert.ok(r, 'the command returned the briefing');
    assert.equal(r.modelPart, 'written');
    assert.match(r.id, /^vt:reflections\/\d{4}-\d{2}-\d{2}\.md$/);
    const text = readFileSync(r.path, 'utf8');
    assert.match(text, /## Waiting\n- Review queue: /);
    assert.match(text, /## Model's view \(echo-stub\)\n\n### What was achieved\nThe orbit service was renamed\./);
    assert.equal(engine.lastReflectionDay(), r.day);
    await vscode.commands.executeCommand(OPEN_DASHBOARD_COMMAND);
    const panel = api.dashboard()!;
    const overview = new DashboardData(engine, () => ({ includeSecrets: false })).overview();
    assert.equal(overview.briefing?.id, r.id);
    assert.match(overview.briefing?.text ?? '', /^# Morning briefing /);
    // The webview draws the overview (with the card) from the host's answer.
    await untilEvent(panel.onDidRender, () => panel.rendered.has('overview') || undefined, 'the overview drawn', 30_000);
    const posted = panel.responses.get('getOverview') as { result?: { briefing?: { id: string } | null } } | undefined;
    assert.ok(posted?.result?.briefing, 'the overview the webview drew carries the briefing');
    panel.dispose();
    // Leave the shared vault as the later test files expect it (no reflections/ folder).
    await engine.forget(r.id, 'test');
    rmSync(path.dirname(r.path), { recursive: true, force: true });
  });
});

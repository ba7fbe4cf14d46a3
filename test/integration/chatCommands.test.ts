// @memory's slash commands, model failures, outbound masking, health notices and follow-ups in a real VS Code
// (SPEC R-UI-1, R-UI-2, R-UI-9, R-MEM-7, R-MAINT-3). A scripted OpenAI-compatible server on 127.0.0.1 answers
// per model name (a normal model, one refusing with 401, one missing with 404); a fourth entry points at a closed
// port. What the chat shows is read back from the workbench's own chat export.
import * as assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { MemoryEngine } from '../../src/engine/engine';
import { MemoryError } from '../../src/engine/errors';
import { nullLogger } from '../../src/engine/host';
import { localDay } from '../../src/engine/vault/vaultLayout';
import { createSaveBudget } from '../../src/engine/write/agentSave';
import type { MemoryExtensionApi } from '../../src/extension';
import { buildTurnPrompt, STABLE_PREAMBLE } from '../../src/vscode/chat/memoryParticipant';
import { TurnRegistry } from '../../src/vscode/chat/turnRegistry';
import { MemoryExpandTool } from '../../src/vscode/tools/memoryExpandTool';
import { MemorySearchTool } from '../../src/vscode/tools/memorySearchTool';
import { createCallBudget } from '../../src/vscode/tools/registerMemoryTools';
import { FakeOpenAiServer, sseOf, textChunk, type RecordedRequest, type Reply } from '../unit/model/fakeOpenAiServer';
import { activated, userSettingsLoaded } from './api';
import { ask, firstMessage, isCapture, lastUser, VENDOR } from './chatHarness';
import { until } from './waitFor';
import { internals } from '../../src/engine/internals';

/** Text only the server knows: it must never reach the chat. */
const SERVER_SECRET = 'SERVER-ONLY-DETAIL-7731';
const IBAN = 'DE89 3704 0044 0532 0130 00';

const MODELS = {
  ok: { vendor: VENDOR, id: 'chat-stub' },
  denied: { vendor: VENDOR, id: 'denied-stub' },
  missing: { vendor: VENDOR, id: 'missing-stub' },
  down: { vendor: VENDOR, id: 'down-stub' },
};

function answer(req: RecordedRequest): Reply {
  if (req.url.endsWith('/models')) return { json: { data: [{ id: 'stub-model' }] } };
  const model = req.body?.model;
  if (model === 'denied-model') return { status: 401, json: { error: { message: `${SERVER_SECRET}: invalid api key`, code: 'invalid_api_key' } } };
  if (model === 'missing-model') return { status: 404, json: { error: { message: `${SERVER_SECRET}: model 'missing-model' not found`, code: 'model_not_found' } } };
  const streamed = (text: string): Reply => ({ sse: sseOf([textChunk(text.slice(0, 10)), textChunk(text.slice(10), 'stop')]) });
  if (isCapture(req)) return streamed(JSON.stringify({ notes: [] }));
  return streamed(`Stub answer to: ${lastUser(req).slice(-60).replace(/\s+/g, ' ')}`);
}

describe('@memory slash commands, model failures, masking, health and follow-ups in VS Code', function () {
  this.timeout(90_000);
  let api: MemoryExtensionApi;
  let engine: MemoryEngine;
  let server: FakeOpenAiServer;
  const cfg = () => vscode.workspace.getConfiguration('memory');
  const answers = (from: number) => server.chats.slice(from).filter((r) => !isCapture(r));
  const storedTextIncludes = (s: string) => internals(engine).store.items.list({}).some((it) => (it.text ?? '').includes(s) || (it.summary ?? '').includes(s));

  /** Resolves when every entry's model is selectable in vscode.lm (the picker and modelSelector need them). */
  async function modelsListed(): Promise<void> {
    const all = async () => (await Promise.all(Object.values(MODELS).map((m) => vscode.lm.selectChatModels(m)))).every((l) => l.length > 0);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => { sub.dispose(); reject(new Error('the four bridge models never appeared in vscode.lm')); }, 20_000);
      const check = async () => { if (await all()) { clearTimeout(timer); sub.dispose(); resolve(); } };
      const sub = vscode.lm.onDidChangeChatModels(() => { void check(); });
      void check();
    });
  }

  async function writeNote(rel: string, summary: string, body: string): Promise<string> {
    const file = path.join(engine.vaultDir, ...rel.split('/'));
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `---\nkind: reference\nsummary: ${summary}\n---\n${body}\n`);
    await internals(engine).vault.syncFile(rel);
    await internals(engine).index.embedPending();
    return `vt:${rel}`;
  }

  before(async () => {
    api = await activated();
    await userSettingsLoaded();
    engine = await api.engine();
    server = await FakeOpenAiServer.start(answer);
    const closed = await FakeOpenAiServer.start(answer);
    const downUrl = closed.baseUrl;
    await closed.close();
    await cfg().update('localModels', [
      { name: 'Chat Stub', baseUrl: server.baseUrl, model: 'stub-model', contextWindow: 32768 },
      { name: 'Denied Stub', baseUrl: server.baseUrl, model: 'denied-model', contextWindow: 32768 },
      { name: 'Missing Stub', baseUrl: server.baseUrl, model: 'missing-model', contextWindow: 32768 },
      { name: 'Down Stub', baseUrl: downUrl, model: 'stub-model', contextWindow: 32768 },
    ], vscode.ConfigurationTarget.Global);
    await modelsListed();
  });

  after(async () => {
    await cfg().update('localModels', undefined, vscode.ConfigurationTarget.Global);
    await server?.close();
  });

  it('/search shows the hits with their ids', async () => {
    const id = await writeNote('semantic/staging-deploy.md', 'Staging deploys use the blue-green strategy', 'Staging deploys use the blue-green strategy on Fridays.');
    const r = await ask('@memory /search blue-green staging deploys', { newChat: true, model: MODELS.ok });
    assert.equal(r.result?.metadata?.command, 'search');
    assert.match(r.markdown, /\d+ memories, best first/);
    assert.ok(r.markdown.includes(`\`${id}\``), `the hit list names ${id}:\n${r.markdown}`);
  });

  it('/status shows the engine card figures and no memory text', async () => {
    const r = await ask('@memory /status', { model: MODELS.ok });
    const md = r.markdown;
    assert.match(md, /Memory is on/);
    assert.match(md, /embedder `[\w.:-]+`( \(model `[^`]+`\))? with vectors for \d+ of \d+ items/);
    assert.match(md, /\d+ items/);
    assert.match(md, /summaries \d+ of \d+/, 'vectors as "X of Y"');
    assert.match(md, /facts \d+ of \d+/);
    assert.match(md, /Raw record (on|off) · capture tool results (on|off) · capture thinking (on|off) · include secrets (on|off)/);
    assert.match(md, /Recall budget \d+ chars/);
    assert.match(md, /Health: (ok|warn|critical) — memory holds [\d.]+ (MB|KB) in RAM \(database [\d.]+ (MB|KB)/);
    assert.ok(!/blue-green|pnpm/.test(md), 'no memory text in the card');
  });

  it('/today opens today\'s daily note in the editor', async () => {
    const r = await ask('@memory /today', { model: MODELS.ok });
    assert.match(r.markdown, /Opened today's note/);
    const day = localDay(engine.clock.now(), engine.clock.timeZone());
    const open = vscode.window.activeTextEditor?.document.uri.fsPath ?? '';
    assert.ok(open.endsWith(path.join('logs', `${day}.md`)), `active editor ${open} is logs/${day}.md`);
  });

  it('/forget shows the memory and a button, and deletes only once the deletion is confirmed', async () => {
    const id = await writeNote('semantic/old-office.md', 'The old office wifi is called Gamma-Guest', 'The old office wifi is called Gamma-Guest.');
    const r = await ask(`@memory /forget ${id}`, { newChat: true, model: MODELS.ok });
    assert.ok(r.markdown.includes(id) && /cannot be undone/.test(r.markdown), r.markdown);
    const button = (r.shown.response ?? []).find((p) => p.kind === 'command')?.command;
    assert.ok(button, 'the response carries a button');
    assert.equal(button.title, `Forget ${id}`);
    assert.ok(internals(engine).store.items.get(id), 'nothing is deleted before the confirmation');
    // The button runs memory.forget(id) (VS Code exports it as an internal delegate command), which asks in a
    // modal the extension host cannot answer; { confirmed: true } stands for the user's "Forget" there.
    const done = await vscode.commands.executeCommand<{ removed: string[] }>('memory.forget', id, { confirmed: true });
    assert.ok(done?.removed.includes(id));
    assert.equal(internals(engine).store.items.get(id), undefined);
    const after = await ask('@memory /search Gamma-Guest old office wifi', { model: MODELS.ok });
    assert.ok(!after.markdown.includes(id), 'the forgotten note is gone from search');
  });

  for (const [what, model, sentence] of [
    ['a 401 from the model server', MODELS.denied, /refused the request \(401\): check the API key/],
    ['a 404 for the model', MODELS.missing, /model "missing-model" is not available/],
    ['a model server that is down', MODELS.down, /cannot reach|not running|is the server running/i],
  ] as const) {
    it(`answers ${what} with a clear sentence, no server text or stack, and saves no turn`, async () => {
      const marker = `question-${model.id}-${Date.now().toString(36)}`;
      const r = await ask(`@memory ${marker} what do you know?`, { newChat: true, model });
      const shown = `${r.markdown}\n${r.result?.errorDetails?.message ?? ''}`;
      assert.match(shown, sentence, shown);
      assert.ok(!shown.includes(SERVER_SECRET), 'the server\'s own error text stays out of the chat');
      assert.ok(!/\n\s+at [\w.<]+ \(|Error: /.test(shown), `no stack trace: ${shown}`);
      await api.participant.drain();
      assert.ok(!storedTextIncludes(marker), 'a failed answer is not saved');
    });
  }

  it('answers when recall fails, without a memory block', async () => {
    const recall = engine.recall;
    engine.recall = async () => { throw new MemoryError('E_INTERNAL', 'recall broke (test)'); };
    try {
      const before = server.chats.length;
      const r = await ask('@memory recall-is-broken: which package manager do we use?', { newChat: true, model: MODELS.ok });
      const sent = answers(before);
      assert.equal(sent.length, 1, 'the model was still asked');
      assert.ok(!lastUser(sent[0]).includes('<memory-context>'));
      assert.match(r.markdown, /Stub answer to:/);
      assert.equal(r.result?.errorDetails, undefined);
    } finally {
      engine.recall = recall;
    }
  });

  it('sends an IBAN unmasked to a loopback model and masked to a remote one, in the block and in tool results', async () => {
    const id = await writeNote('semantic/supplier-payment.md', 'Supplier payment account', `The supplier payment account is IBAN ${IBAN} at the shop bank.`);
    const question = 'what is the supplier payment account IBAN?';
    // The real turn through the loopback bridge model: unmasked.
    const before = server.chats.length;
    await ask(`@memory ${question}`, { newChat: true, model: MODELS.ok });
    const sent = answers(before)[0];
    assert.ok(sent, 'the bridge model was asked');
    assert.ok(lastUser(sent).includes(IBAN), 'a loopback model gets the IBAN as stored');
    // The same prompt built for a non-loopback model (real remote traffic is not allowed on this machine).
    const base = { prompt: question, history: [], conversation: `chat-mask-${Date.now()}`, project: {}, window: 32_000, canUseTools: true, logger: nullLogger };
    const local = await buildTurnPrompt(engine, { ...base, local: true });
    const remote = await buildTurnPrompt(engine, { ...base, local: false });
    assert.ok(local.recall.items.includes(id) && local.block.includes(IBAN));
    assert.ok(remote.block.includes(id), 'the remote block still carries the memory');
    assert.ok(!remote.block.includes(IBAN) && remote.block.includes('[IBAN]'), 'the remote block is masked');
    // Tool results: a call from a local @memory turn is unmasked; any other caller counts as remote.
    const turns = new TurnRegistry();
    const deps = { host: api.host, turns, budget: createCallBudget(() => 10), saveBudget: createSaveBudget(), logger: nullLogger, project: () => ({}), enabled: () => true };
    const search = new MemorySearchTool(deps);
    const expand = new MemoryExpandTool(deps);
    const text = (r: vscode.LanguageModelToolResult) => r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
    const token = { sessionId: 'mask-test' } as unknown as vscode.ChatParticipantToolToken;
    const turn = turns.begin(token, { conversation: base.conversation, local: true });
    const hits = text(await search.invoke({ input: { query: 'supplier payment account IBAN' }, toolInvocationToken: token }));
    assert.ok(hits.includes(`[${id}]`), hits);
    const fromLocal = text(await expand.invoke({ input: { id }, toolInvocationToken: token }));
    turn.end();
    const fromRemote = text(await expand.invoke({ input: { id }, toolInvocationToken: undefined }));
    assert.ok(fromLocal.includes(IBAN), `a local @memory turn's tool result is unmasked: ${fromLocal}`);
    assert.ok(!fromRemote.includes(IBAN) && fromRemote.includes('[IBAN]'), `any other caller gets it masked: ${fromRemote}`);
  });

  it('keeps the first message of every request the same stable preamble', () => {
    const sent = answers(0);
    assert.ok(sent.length >= 2);
    for (const r of sent) assert.equal(firstMessage(r), STABLE_PREAMBLE);
  });

  it('mentions a worsened memory health once, in the next answer only', async () => {
    const applied = until(vscode.workspace.onDidChangeConfiguration, () => api.settings().healthWarnBytes === 1 && api.settings().healthEveryNTurns === 1, 'the health settings');
    await cfg().update('health.everyNTurns', 1, vscode.ConfigurationTarget.Global);
    await cfg().update('health.critBytes', 1e15, vscode.ConfigurationTarget.Global);
    await cfg().update('health.warnBytes', 1, vscode.ConfigurationTarget.Global);
    await applied;
    try {
      const first = await ask('@memory health check one', { newChat: true, model: MODELS.ok });
      assert.match(first.markdown, /Memory health warning/);
      const second = await ask('@memory health check two', { model: MODELS.ok });
      assert.match(second.markdown, /Stub answer to:/);
      assert.ok(!/Memory health/.test(second.markdown), 'the same level is not repeated');
    } finally {
      for (const k of ['health.everyNTurns', 'health.critBytes', 'health.warnBytes']) await cfg().update(k, undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('offers a follow-up that searches memory after an answer that used memory', async () => {
    await writeNote('semantic/release-train.md', 'Releases ship every second Tuesday', 'Releases ship every second Tuesday on the release train.');
    const r = await ask('@memory when do releases ship on the release train?', { newChat: true, model: MODELS.ok });
    const recalled = r.result?.metadata?.recalled as string[] | undefined;
    assert.ok(recalled?.includes('vt:semantic/release-train.md'), `recalled ${JSON.stringify(recalled)}`);
    const provider = api.participant.participant.followupProvider!;
    const token = new vscode.CancellationTokenSource().token;
    const ups = (await provider.provideFollowups(r.result as vscode.ChatResult, { history: [] }, token)) ?? [];
    assert.equal(ups.length, 1);
    assert.equal(ups[0].command, 'search');
    assert.match(ups[0].prompt, /release train/, 'the follow-up searches for the question\'s topic');
    const none = await provider.provideFollowups({ metadata: { conversation: 'x', command: 'status' } }, { history: [] }, token);
    assert.deepEqual(none ?? [], [], 'no follow-up after a slash command');
  });
});

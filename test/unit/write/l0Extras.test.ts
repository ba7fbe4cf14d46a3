import assert from 'node:assert/strict';
import { isMemoryError } from '../../../src/engine/errors';
import { createTestEngine, turn, type TestEngine } from '../engine/builders';
import { internals } from '../../../src/engine/internals';

const TOOL_MARK = 'zebrafinch';
const THINK_MARK = 'quokkaplan';

function extrasTurn(over: { conversation?: string } = {}) {
  return turn({
    conversation: over.conversation ?? 'conv-1',
    user: 'Which Python versions does the payments service support in production right now?',
    assistant: 'The payments service runs on Python 3.12 in production; 3.11 is still allowed in CI.',
    thinking: `Let me check the ${THINK_MARK} notes: the Dockerfile pins python:3.12-slim, CI matrix has 3.11.`,
    toolResults: [
      { name: 'readFile', args: { path: 'Dockerfile', pad: 'a'.repeat(5_000) }, result: `FROM python:3.12-slim ${TOOL_MARK}\n` + 'RUN pip install ünïcode\n'.repeat(1_000) },
    ],
  });
}

describe('L0 extras: tool results and reasoning', () => {
  let t: TestEngine | undefined;
  afterEach(async () => { await t?.cleanup(); t = undefined; });

  it('stores nothing of tool results or reasoning while the switches are off (the default)', async () => {
    t = await createTestEngine({ syncVault: false });
    const r = await t.engine.recordTurn(extrasTurn());
    assert.equal(r.ids.length, 2);
    await t.engine.flush();
    const roles = internals(t.engine).store.items.list({ kind: 'raw' }).map((i) => i.role).sort();
    assert.deepEqual(roles, ['assistant', 'user']);
  });

  it('stores capped tool results (role tool) and reasoning (role thinking) in the raw record when switched on', async () => {
    t = await createTestEngine({ syncVault: false, settings: { l0CaptureToolResults: true, l0CaptureThinking: true } });
    const r = await t.engine.recordTurn(extrasTurn());
    assert.equal(r.ids.length, 4);
    const items = internals(t.engine).store.items.getMany(r.ids);
    assert.deepEqual(items.map((i) => i.role), ['user', 'thinking', 'tool', 'assistant'], 'kept in chat order');
    await t.engine.flush();
    const tool = internals(t.engine).store.items.get(r.ids[2]!)!;
    const text = internals(t.engine).writer.textOf(tool);
    const [head, ...rest] = text.split('\n');
    assert.ok(head!.startsWith('readFile('));
    assert.ok(head!.length <= 'readFile('.length + 2_048 + 1, 'arguments cut to 2,048 chars');
    assert.ok(Buffer.byteLength(rest.join('\n'), 'utf8') <= 8_192, 'result capped at 8 KB');
    assert.ok(text.includes(TOOL_MARK));
    assert.equal(tool.meta.resultTruncated, true);
    assert.equal(tool.meta.argsTruncated, true);
    assert.equal(tool.trust, 'ingested', 'tool output is third-party text');
    assert.match(internals(t.engine).writer.textOf(internals(t.engine).store.items.get(r.ids[1]!)!), new RegExp(THINK_MARK));
    assert.equal(internals(t.engine).store.items.list({ kind: 'fact' }).length, 0, 'nothing is derived from them');
  });

  it('never returns tool results or reasoning from search, recall or expand', async () => {
    t = await createTestEngine({ syncVault: false, settings: { l0CaptureToolResults: true, l0CaptureThinking: true } });
    const r = await t.engine.recordTurn(extrasTurn());
    const [toolId, thinkId] = [r.ids[2]!, r.ids[1]!];
    for (const flushed of [false, true]) {
      if (flushed) await t.engine.flush();
      await internals(t.engine).index.embedPending();
      for (const q of [TOOL_MARK, THINK_MARK, 'python slim Dockerfile pip install']) {
        const hits = await t.engine.search(q, {});
        assert.ok(!hits.some((h) => h.id === toolId || h.id === thinkId), `search "${q}" (flushed ${flushed})`);
        const rec = await t.engine.recall({ message: q });
        assert.ok(!rec.items.includes(toolId) && !rec.items.includes(thinkId));
        assert.ok(!rec.block.includes(TOOL_MARK) && !rec.block.includes(THINK_MARK));
      }
      for (const id of [toolId, thinkId]) await assert.rejects(t.engine.expand(id, {}), (e) => isMemoryError(e, 'E_NOT_FOUND'));
    }
    const summary = internals(t.engine).store.items.get('gs:conv-1')!;
    assert.ok(!summary.text!.includes(TOOL_MARK) && !summary.text!.includes(THINK_MARK), 'the summary never reads them');
  });
});

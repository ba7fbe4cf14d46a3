import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { buildRecallBlock } from '../../../src/engine/recall/recallBlock';
import { extractFacts } from '../../../src/engine/write/derive';
import { stripRecallEcho } from '../../../src/engine/write/echo';
import { createTestEngine, turn, type TestEngine } from '../engine/builders';
import { internals } from '../../../src/engine/internals';

const BLOCK = buildRecallBlock({
  now: Date.parse('2026-11-02T09:00:00Z'), timeZone: 'UTC', longterm: 'I am Ana and I prefer tabs.',
  index: [{ id: 'vt:semantic/pnpm.md', summary: 'The build uses pnpm workspaces', kind: 'user' }],
  hits: [
    { id: 'fa:node', text: 'Node version: 22 LTS', kind: 'fact', trust: 'derived', score: 0.9 },
    { id: 'rw:abc', text: 'We deploy blue-green with a manual approval before the production switch.', kind: 'raw', trust: 'owner', score: 0.8 },
  ],
  fullTexts: [{ id: 'rw:abc', text: 'We deploy blue-green with a manual approval before the production switch.\nRelease cadence: weekly' }],
  canUseTools: true, budgetChars: 2400,
}).text;

describe('no echo: stripRecallEcho', () => {
  it('removes a whole echoed block (tags included) and keeps the rest of the reply byte for byte', () => {
    const reply = `Here is what I was given:\n${BLOCK}\n\nAnswer: use **pnpm**.\n  - keep the indentation`;
    const r = stripRecallEcho(reply, BLOCK);
    assert.equal(r.text, 'Here is what I was given:\n\nAnswer: use **pnpm**.\n  - keep the indentation');
    assert.deepEqual(r.echoedIds.sort(), ['fa:node', 'rw:abc', 'vt:semantic/pnpm.md']);
    assert.equal(r.removedChars, reply.length - r.text.length);
  });

  it('removes fragments: block lines quoted, listed or slightly changed, and hit lines anywhere', () => {
    const reply = [
      'From memory:',
      '> We deploy blue-green with a manual approval before the production switch.',
      '- [fa:node] (fact, derived) Node version: 22 LTS',
      '* The build uses pnpm workspaces',
      'We deploy blue green, with a manual approval before the production switch!',
      'So the answer is: Node 22 with pnpm.',
    ].join('\n');
    const r = stripRecallEcho(reply, BLOCK);
    assert.equal(r.text, 'From memory:\nSo the answer is: Node 22 with pnpm.');
    assert.deepEqual(new Set(r.echoedIds), new Set(['rw:abc', 'fa:node', 'vt:semantic/pnpm.md']));
  });

  it('leaves a reply that does not quote memory exactly as it was', () => {
    const reply = 'Use pnpm.\n\n\n```ts\nconst x = 1;\n```\n';
    assert.deepEqual(stripRecallEcho(reply, BLOCK), { text: reply, removedChars: 0, echoedIds: [] });
    assert.deepEqual(stripRecallEcho(reply), { text: reply, removedChars: 0, echoedIds: [] });
  });

  it('removes a <memory-context> span even without the block (an unclosed one runs to the end)', () => {
    assert.equal(stripRecallEcho('Before.\n<memory-context>\nNode version: 22\n</memory-context>\nAfter.').text, 'Before.\n\nAfter.');
    assert.equal(stripRecallEcho('Keep this.\n<memory-context>\nNode version: 22').text, 'Keep this.');
    assert.equal(stripRecallEcho('Stub answer to: /memory-context> what is the IBAN?').text, 'Stub answer to:  what is the IBAN?');
  });
});

describe('no echo: derivation', () => {
  it('never derives facts from text inside a quoted block', () => {
    const facts = extractFacts(`Editor: VS Code\n${BLOCK}\n> Database: Postgres 16\nShell: zsh`);
    assert.deepEqual(facts.map((f) => f.key).sort(), ['editor', 'shell']);
  });
});

describe('no echo: the write path', () => {
  let t: TestEngine;
  beforeEach(async () => { t = await createTestEngine(); });
  afterEach(async () => { await t.cleanup(); });

  async function recalled() {
    await t.engine.recordTurn(turn({ conversation: 'old', user: 'Our release process: we deploy blue-green with a manual approval before the production switch, always on Tuesdays.' }));
    await t.engine.flush();
    const r = await t.engine.recall({ message: 'how do we deploy blue-green to production?', conversation: 'new', window: 128_000 });
    assert.ok(r.block && r.items.length, 'something was recalled');
    return r;
  }

  it('a reply that echoes its whole prompt saves nothing new, reinforces the recalled items and logs no block', async () => {
    const r = await recalled();
    const before = internals(t.engine).store.items.count({ kind: 'raw' });
    const source = r.hits[0]!.id;
    const accessBefore = internals(t.engine).store.items.get(source)!.accessCount;
    const echoReply = `${r.block}\n\nhow do we deploy blue-green to production?`;
    const res = await t.engine.recordTurn({ conversation: 'new', user: 'how do we deploy blue-green to production? Please answer from memory.', assistant: echoReply, recall: { block: r.block, ids: r.items } });
    // The user's question is saved; the reply minus the block is the echoed question (too short to keep).
    assert.equal(internals(t.engine).store.items.count({ kind: 'raw' }), before + 1);
    assert.ok(res.skipped.some((s) => s.role === 'assistant'));
    assert.ok(res.reinforced?.includes(source), 'the echoed item is reinforced');
    const after = internals(t.engine).store.items.get(source)!;
    assert.equal(after.accessCount, accessBefore + 1);
    assert.equal(after.meta.reinforced, 1);
    assert.equal(internals(t.engine).store.counters.all()['reinforced.echo'], res.reinforced!.length);
    await t.engine.close();
    const logs = readFileSync(path.join(t.vaultDir, 'logs', '2026-11-02.md'), 'utf8');
    assert.doesNotMatch(logs, /memory-context|Recalled memory/);
  });

  it('a reply restating one recalled item reinforces it instead of saving a duplicate', async () => {
    const r = await recalled();
    const source = internals(t.engine).store.items.get(r.hits[0]!.id)!;
    const text = internals(t.engine).writer.textOf(source);
    const res = await t.engine.recordTurn({ conversation: 'new', user: 'Remind me of our release process for production, please, in one sentence.', assistant: `${text} [source:${source.id}]`, recall: { block: r.block, ids: r.items } });
    assert.deepEqual(res.skipped, [{ role: 'assistant', rule: 'echo' }]);
    assert.deepEqual(res.reinforced, [source.id]);
    assert.equal(internals(t.engine).store.counters.all()['skip.echo'], 1);
  });

  it('ids a reply names that were not recalled are never reinforced', async () => {
    const other = (await t.engine.recordTurn(turn({ conversation: 'x' }))).ids[0]!;
    const res = await t.engine.recordTurn({ conversation: 'y', user: 'A question long enough to pass the save filter of memory here.', assistant: `<memory-context>\n- [${other}] (raw, owner) text\n</memory-context>\nA real answer that is long enough to be kept as a raw message.`, recall: { block: '', ids: [] } });
    assert.equal(res.reinforced, undefined);
    assert.equal(res.saved?.assistant, 'A real answer that is long enough to be kept as a raw message.');
    assert.equal(internals(t.engine).store.items.get(other)!.accessCount, 0);
  });
});

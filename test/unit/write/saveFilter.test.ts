import * as assert from 'node:assert/strict';
import { DEFAULT_SETTINGS } from '../../../src/engine/settings';
import { DedupBuffer, evaluateSave, similarity } from '../../../src/engine/write/saveFilter';

const S = DEFAULT_SETTINGS;
const long = 'We moved the nightly ingest job to 02:00 UTC because the reporting queries collided with it.';

describe('save filter', () => {
  it('skips an empty or whitespace-only message as empty', () => {
    assert.deepEqual(evaluateSave({ role: 'user', text: '  \n ' }, [], S), { rule: 'empty' });
  });

  it('skips short messages of both roles as length_floor, counting code points', () => {
    assert.deepEqual(evaluateSave({ role: 'user', text: 'ok thanks' }, [], S), { rule: 'length_floor' });
    assert.deepEqual(evaluateSave({ role: 'assistant', text: 'Sure, done.' }, [], S), { rule: 'length_floor' });
    // 49 emoji are 98 UTF-16 units but 49 code points: still below 50.
    assert.deepEqual(evaluateSave({ role: 'user', text: '😀'.repeat(49) }, [], S), { rule: 'length_floor' });
    assert.equal(evaluateSave({ role: 'user', text: '😀'.repeat(50) }, [], S), null);
  });

  it('skips an assistant reply dominated by footnotes', () => {
    const text = 'See sources.\n[^1]: https://example.com/a very long reference title here\n[^2]: https://example.com/b another long reference title\n[3] Smith, J. (2020). A study of things. Journal of Stuff.';
    assert.deepEqual(evaluateSave({ role: 'assistant', text }, [], S), { rule: 'footnote_dominant' });
    assert.equal(evaluateSave({ role: 'user', text }, [], S), null, 'user messages are not checked for footnotes');
  });

  it('skips an assistant reply dominated by fenced code', () => {
    const text = 'Here:\n```json\n' + JSON.stringify({ a: 1, b: [1, 2, 3], c: 'x'.repeat(200) }, null, 2) + '\n```';
    assert.deepEqual(evaluateSave({ role: 'assistant', text }, [], S), { rule: 'code_dominant' });
    assert.equal(evaluateSave({ role: 'user', text }, [], S), null);
  });

  it('skips a near-duplicate of one of the last three saves as dedup', () => {
    const recent = ['something else entirely, unrelated to the job at all', long];
    assert.deepEqual(evaluateSave({ role: 'assistant', text: long.replace('02:00', '03:00') }, recent, S), { rule: 'dedup' });
    assert.equal(evaluateSave({ role: 'assistant', text: long }, [long, 'a1 '.repeat(30), 'b2 '.repeat(30), 'c3 '.repeat(30)], S), null,
      'only the last saveDedupLookback saves are compared');
  });

  it('lets pinned saves bypass every rule except empty', () => {
    assert.equal(evaluateSave({ role: 'assistant', text: 'ok', pinned: true }, [], S), null);
    assert.equal(evaluateSave({ role: 'assistant', text: long, pinned: true }, [long], S), null);
    assert.deepEqual(evaluateSave({ role: 'user', text: '', pinned: true }, [], S), { rule: 'empty' });
  });

  it('keeps an ordinary message', () => {
    assert.equal(evaluateSave({ role: 'assistant', text: long }, [], S), null);
  });

  it('computes a similarity of 1 for equal and near 0 for unrelated texts', () => {
    assert.equal(similarity(long, long), 1);
    assert.ok(similarity(long, 'Completely different words about cooking pasta with garlic and oil.') < 0.3);
  });

  it('records kept messages per conversation and role so a racing duplicate is caught', async () => {
    const buf = new DedupBuffer(3);
    const results = await Promise.all([1, 2].map(async () => buf.admit('c1', { role: 'assistant', text: long }, S)));
    assert.deepEqual(results, [null, { rule: 'dedup' }]);
    assert.equal(buf.admit('c2', { role: 'assistant', text: long }, S), null, 'other conversation');
    assert.equal(buf.admit('c1', { role: 'user', text: long }, S), null, 'other role');
    buf.forget('c1');
    assert.equal(buf.admit('c1', { role: 'assistant', text: long }, S), null);
  });

  it('keeps only the configured lookback and a bounded number of conversations', () => {
    const buf = new DedupBuffer(2, 3);
    for (const t of ['one message here', 'two message there', 'three messages everywhere']) buf.push('c', 'user', t);
    assert.deepEqual(buf.recent('c', 'user'), ['two message there', 'three messages everywhere']);
    for (const c of ['d', 'e', 'f']) buf.push(c, 'user', 'x');
    assert.deepEqual(buf.recent('c', 'user'), []);
  });
});

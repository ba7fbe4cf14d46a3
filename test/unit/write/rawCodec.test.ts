import * as assert from 'node:assert/strict';
import { isMemoryError } from '../../../src/engine/errors';
import { compressBatch, compressRaw, contentHash, decompressBatch, decompressRaw, rawId } from '../../../src/engine/write/rawCodec';

describe('raw record codec', () => {
  it('round-trips ordinary, empty and unicode text', () => {
    for (const t of ['', 'a', 'Hallo Jürgen, wie geht’s? 😀', 'x'.repeat(1000), 'Árvíztűrő tükörfúrógép — ¿qué tal?']) {
      assert.equal(decompressRaw(compressRaw(t)), t);
    }
  });

  it('round-trips lone surrogates and binary-ish text byte-exactly', () => {
    const odd = 'a\ud800b\udfffc\ud83d\ude00\udbff' + String.fromCharCode(...Array.from({ length: 256 }, (_, i) => i)) + '\ud800';
    assert.equal(decompressRaw(compressRaw(odd)), odd);
    assert.deepEqual(decompressBatch(compressBatch([odd, '', 'plain'])), [odd, '', 'plain']);
    assert.notEqual(contentHash('\ud800'), contentHash('\ufffd'), 'a lone surrogate is not hashed as U+FFFD');
  });

  it('round-trips a 5 MB input and compresses it', () => {
    const words = ['deploy', 'Friday', 'the', 'queue', 'worker', 'we', 'decided', 'Postgres', 'latency', 'über', 'és'];
    let s = '';
    for (let i = 0; s.length < 5_000_000; i++) s += words[(i * 7919) % words.length] + (i % 13 === 0 ? '.\n' : ' ');
    const blob = compressRaw(s);
    assert.ok(blob.length < s.length / 2.5);
    assert.equal(decompressRaw(blob), s);
  });

  it('compresses a flush-sized batch of conversation at least 2.5×', () => {
    const turns = [
      "Hey Mel! Good to see you! How have you been? I'm swamped with the kids & work.",
      'I went to a support group yesterday and it was so powerful. The stories were so inspiring!',
      "That's really cool. You've got guts. What now? Gonna continue my edu and check out career options.",
      'Wow, that sounds amazing! I love painting with my kids on the weekends, it really helps me relax.',
      'Thanks! I have been thinking a lot about adoption lately and what it would mean for my family.',
    ];
    const batch: string[] = [];
    for (let i = 0, n = 0; n < 32_000; i++) { const t = `${turns[i % turns.length]} (${i})`; batch.push(t); n += t.length; }
    const raw = batch.reduce((a, t) => a + Buffer.byteLength(t), 0);
    assert.ok(raw / compressBatch(batch).length >= 2.5);
  });

  it('refuses damaged blobs with E_CORRUPT instead of returning garbage', () => {
    const blob = compressRaw('some text that is long enough to deflate, long enough to deflate');
    assert.throws(() => decompressRaw(Buffer.from([])), (e) => isMemoryError(e, 'E_CORRUPT'));
    assert.throws(() => decompressRaw(Buffer.from([99, 1, 2])), (e) => isMemoryError(e, 'E_CORRUPT'));
    assert.throws(() => decompressRaw(Buffer.concat([blob.subarray(0, 1), Buffer.from([0xff, 0xfe, 0xfd])])), (e) => isMemoryError(e, 'E_CORRUPT'));
    assert.throws(() => decompressBatch(compressRaw('x')), (e) => isMemoryError(e, 'E_CORRUPT'));
  });

  it('names a message by the sha256 of its bytes, so a repeat maps to the same rw: id', () => {
    assert.equal(contentHash('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    assert.equal(rawId('abc'), 'rw:ba7816bf8f01cfea414140de5dae2223');
    assert.equal(rawId('same text'), rawId('same text'));
    assert.notEqual(rawId('same text'), rawId('same text.'));
    assert.match(rawId('x'), /^rw:[0-9a-f]{32}$/);
  });
});

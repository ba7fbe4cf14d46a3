import assert from 'node:assert/strict';
import { newRowId } from '../../../src/engine/store/repositories';

describe('row ids (newRowId)', () => {
  it('are time-sortable and unique across many refills of the random pool', () => {
    const ids = Array.from({ length: 20_000 }, (_, i) => newRowId(1_700_000_000_000 + Math.floor(i / 7)));
    for (const id of ids) assert.match(id, /^[0-9a-z]{9}-[0-9a-f]{8}$/);
    assert.equal(new Set(ids).size, ids.length, 'two ids were the same');
    // Ids of later times sort after earlier ones (the random part only orders ids of the same millisecond).
    for (let i = 7; i < ids.length; i += 7) assert.ok(ids[i - 7]!.slice(0, 9) < ids[i]!.slice(0, 9));
    // The random parts are not a counter: about half of the 32 bits differ between neighbours.
    let bits = 0;
    for (let i = 1; i < 2_000; i++) {
      const x = (parseInt(ids[i]!.slice(10), 16) ^ parseInt(ids[i - 1]!.slice(10), 16)) >>> 0;
      bits += x.toString(2).split('').filter((c) => c === '1').length;
    }
    const mean = bits / 1_999;
    assert.ok(mean > 14 && mean < 18, `mean differing bits ${mean}`);
  });
});

import { strict as assert } from 'node:assert';
import { dot } from '../../../src/engine/embed/embedder';
import { HashEmbedder } from '../../../src/engine/embed/hashEmbedder';
import { isMemoryError } from '../../../src/engine/errors';

describe('HashEmbedder', () => {
  const e = new HashEmbedder();

  it('names its vector space and width', () => {
    assert.equal(e.id, 'hash-v1-384');
    assert.equal(e.dims, 384);
    assert.throws(() => new HashEmbedder(3), (x: unknown) => isMemoryError(x, 'E_BAD_INPUT'));
  });

  it('returns one normalised 384-dim vector per text, deterministically', async () => {
    const [a, b, c] = await e.embed(['the httpx client timed out', 'the httpx client timed out', ''], 'passage');
    assert.equal(a!.length, 384);
    assert.ok(Math.abs(dot(a!, a!) - 1) < 1e-5);
    assert.deepEqual(a, b);
    assert.equal(dot(c!, c!), 0, 'empty text gives the zero vector, not NaN');
  });

  it('gives paraphrase-ish text a higher similarity than unrelated text', async () => {
    const [q, para, other] = await e.embed([
      'configure timeouts for the upload client',
      'the uploading client needs a configured timeout',
      'my sister likes painting landscapes in autumn',
    ], 'query');
    assert.ok(dot(q!, para!) > dot(q!, other!) + 0.2, `${dot(q!, para!)} vs ${dot(q!, other!)}`);
  });

  it('relates inflected and compound forms through character n-grams', async () => {
    const [a, b, c] = await e.embed(['Datenbankverbindung', 'Datenbank Verbindungen', 'Gartenarbeit'], 'passage');
    assert.ok(dot(a!, b!) > dot(a!, c!));
  });

  it('is the same for query and passage (no prefixes)', async () => {
    const [q] = await e.embed(['hello world'], 'query');
    const [p] = await e.embed(['hello world'], 'passage');
    assert.deepEqual(q, p);
  });
});

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Embedder, EmbedKind } from '../../../src/engine/embed/embedder';
import { HashEmbedder } from '../../../src/engine/embed/hashEmbedder';
import { isMemoryError } from '../../../src/engine/errors';
import { MAX_DOCUMENT_BYTES, loadDocument, splitSections } from '../../../src/engine/write/docIngest';
import { createTestEngine, type TestEngine } from '../engine/builders';
import { internals } from '../../../src/engine/internals';

/** The real hash embedder, counting the texts it is asked to embed as passages. */
class CountingEmbedder implements Embedder {
  private readonly inner = new HashEmbedder();
  passages = 0;
  get id() { return this.inner.id; }
  get dims() { return this.inner.dims; }
  embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]> {
    if (kind === 'passage') this.passages += texts.length;
    return this.inner.embed(texts, kind);
  }
}

const GUIDE = [
  '---', 'author: ops', '---',
  'Intro paragraph about the runbook.',
  '# Runbook', 'How we operate the payments service.',
  '## Deploys', 'Deploys go out on Tuesdays via the blue-green pipeline.',
  '```bash', '# not a heading inside code', 'make deploy', '```',
  '### Rollback', 'Rollback with `make rollback`; it takes about four minutes.',
  '## Alerts', 'Pager alerts go to the #payments-oncall channel.',
].join('\n');

describe('document ingestion', () => {
  let t: TestEngine;
  let emb: CountingEmbedder;
  beforeEach(async () => { emb = new CountingEmbedder(); t = await createTestEngine({ syncVault: false, embedder: emb as unknown as Embedder }); });
  afterEach(async () => { await t.cleanup(); });
  const deps = () => ({ store: internals(t.engine).store, clock: t.engine.clock, logger: t.engine.logger });
  const docs = () => internals(t.engine).store.items.list({ kind: 'doc', order: 'id' });

  it('splits Markdown by headings with section paths, ignoring headings inside code and front matter', () => {
    const secs = splitSections(GUIDE);
    assert.deepEqual(secs.map((s) => s.headings.join(' / ')), ['', 'Runbook', 'Runbook / Deploys', 'Runbook / Deploys / Rollback', 'Runbook / Alerts']);
    assert.match(secs[2]!.text, /# not a heading inside code/);
    assert.ok(!secs[0]!.text.includes('author'), 'front matter is not a section');
  });

  it('loads a document as pinned doc items, one per section, titled by section path', async () => {
    const file = path.join(t.dir, 'runbook.md');
    writeFileSync(file, GUIDE);
    const r = await loadDocument(deps(), { path: file, project: 'payments' });
    assert.deepEqual({ added: r.added, updated: r.updated, unchanged: r.unchanged, removed: r.removed }, { added: 5, updated: 0, unchanged: 0, removed: 0 });
    const items = docs();
    assert.equal(items.length, 5);
    assert.ok(items.every((i) => i.id.startsWith('dc:') && i.kind === 'doc' && i.pinned && i.project === 'payments' && i.trust === 'ingested'));
    assert.ok(items.some((i) => i.title === 'runbook › Runbook › Deploys › Rollback'));
    const hits = await t.engine.search('rollback make four minutes', { project: 'payments' });
    assert.ok(hits.some((h) => items.find((i) => i.title?.endsWith('Rollback'))!.id === h.id), 'a section is searchable');
  });

  it('re-loads idempotently: only added and changed sections are written and embedded, removed ones deleted', async () => {
    const first = await loadDocument(deps(), { text: GUIDE, title: 'Runbook doc' });
    await internals(t.engine).index.embedPending();
    const afterFirst = emb.passages;
    assert.ok(afterFirst >= 5);
    const again = await loadDocument(deps(), { text: GUIDE, title: 'Runbook doc' });
    await internals(t.engine).index.embedPending();
    assert.deepEqual({ added: again.added, updated: again.updated, unchanged: again.unchanged, removed: again.removed }, { added: 0, updated: 0, unchanged: 5, removed: 0 });
    assert.equal(emb.passages, afterFirst, 'an unchanged document costs no embedding call');
    assert.deepEqual(again.ids, first.ids, 'stable ids');

    const edited = GUIDE.replace('four minutes', 'two minutes').replace(/## Alerts[\s\S]*$/, '## Contacts\nAsk Dana for access.');
    const r = await loadDocument(deps(), { text: edited, title: 'Runbook doc' });
    await internals(t.engine).index.embedPending();
    assert.deepEqual({ added: r.added, updated: r.updated, unchanged: r.unchanged, removed: r.removed }, { added: 1, updated: 1, unchanged: 3, removed: 1 });
    assert.equal(emb.passages, afterFirst + 2, 'only the changed and the new section are embedded');
    assert.ok(!docs().some((i) => i.title?.endsWith('Alerts')));
    assert.match(docs().find((i) => i.title?.endsWith('Rollback'))!.text!, /two minutes/);
  });

  it('tags a section with credentials contains-secrets and never embeds or recalls it', async () => {
    const md = '# Setup\nInstall the CLI.\n## Keys\nThe staging api key: sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD\n';
    const r = await loadDocument(deps(), { text: md });
    assert.equal(r.secret, 1);
    const keys = docs().find((i) => i.title?.endsWith('Keys'))!;
    assert.equal(keys.secret, true);
    assert.deepEqual(keys.tags, ['contains-secrets']);
    await internals(t.engine).index.embedPending();
    assert.equal(internals(t.engine).index.hasVector(keys.id), false);
    const hits = await t.engine.search('staging api key', {});
    assert.ok(!hits.some((h) => h.id === keys.id));
  });

  it('refuses bad input with a clear error and writes nothing', async () => {
    const bad = async (input: Parameters<typeof loadDocument>[1], code: string, re?: RegExp) => {
      await assert.rejects(loadDocument(deps(), input), (e) => isMemoryError(e, code as never) && (!re || re.test((e as Error).message)));
    };
    const bin = path.join(t.dir, 'image.md');
    writeFileSync(bin, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]));
    await bad({ path: bin }, 'E_BAD_INPUT', /binary/);
    const latin1 = path.join(t.dir, 'latin1.md');
    writeFileSync(latin1, Buffer.from('# Caf\xe9 notes\nna\xefve\n', 'latin1'));
    await bad({ path: latin1 }, 'E_BAD_INPUT', /UTF-8/);
    const huge = path.join(t.dir, 'huge.md');
    writeFileSync(huge, '# Big\n' + 'x'.repeat(MAX_DOCUMENT_BYTES));
    await bad({ path: huge }, 'E_TOO_LARGE', /5 MB/);
    await bad({ text: '# H\n' + 'y'.repeat(MAX_DOCUMENT_BYTES) }, 'E_TOO_LARGE');
    const empty = path.join(t.dir, 'empty.md');
    writeFileSync(empty, '  \n\n');
    await bad({ path: empty }, 'E_BAD_INPUT', /empty/);
    await bad({ text: '' , title: 'x' }, 'E_BAD_INPUT', /empty/);
    await bad({ text: 'no heading and no title' }, 'E_BAD_INPUT', /title/);
    await bad({ text: '# A\n\ud800 lone half' }, 'E_BAD_INPUT', /Unicode/);
    await bad({ path: path.join(t.dir, 'missing.md') }, 'E_NOT_FOUND');
    await bad({ path: t.dir }, 'E_BAD_INPUT', /not a file/);
    await bad({ path: bin, text: 'x' }, 'E_BAD_INPUT');
    assert.equal(docs().length, 0, 'nothing was written');
  });

  it('refuses a caller-read file (vscode.workspace.fs bytes) that is bad, with a clear error and nothing written', async () => {
    const bad = async (input: Parameters<typeof loadDocument>[1], code: string, re?: RegExp) => {
      await assert.rejects(loadDocument(deps(), input), (e) => isMemoryError(e, code as never) && (!re || re.test((e as Error).message)));
    };
    const enc = (s: string) => new TextEncoder().encode(s);
    await bad({ file: { name: '', bytes: enc('# A\nb') } }, 'E_BAD_INPUT', /name and its bytes/);
    await bad({ file: { name: 'vscode-remote://ssh-remote+box/a.md', bytes: 'text' as unknown as Uint8Array } }, 'E_BAD_INPUT', /name and its bytes/);
    await bad({ file: { name: 'x.md', bytes: new Uint8Array(MAX_DOCUMENT_BYTES + 1) } }, 'E_TOO_LARGE', /5 MB/);
    await bad({ file: { name: 'x.md', bytes: new Uint8Array([0x23, 0x20, 0x41, 0, 0x42]) } }, 'E_BAD_INPUT', /binary/);
    await bad({ file: { name: 'x.md', bytes: Uint8Array.from(Buffer.from('# Caf\xe9\n', 'latin1')) } }, 'E_BAD_INPUT', /UTF-8/);
    await bad({ file: { name: 'x.md', bytes: enc('# A\nb') }, text: '# A\nb' }, 'E_BAD_INPUT');
    assert.equal(docs().length, 0, 'nothing was written');
  });

  it('loads a caller-read file keyed by its name (a URI for a remote file), titled from its last path segment', async () => {
    const name = 'vscode-remote://ssh-remote%2Bbox/home/dev/On%20call.md';
    const bytes = new TextEncoder().encode('Paging goes through the ops bridge.\n\n## Escalation\nCall the duty lead after 15 minutes.\n');
    const r = await loadDocument(deps(), { file: { name, bytes } });
    assert.equal(r.document, name);
    assert.equal(r.added, 2);
    assert.deepEqual(docs().map((d) => d.title).sort(), ['On call', 'On call › Escalation']);
    const again = await loadDocument(deps(), { file: { name, bytes } });
    assert.equal(again.unchanged, 2, 'the same name updates in place');
  });
});

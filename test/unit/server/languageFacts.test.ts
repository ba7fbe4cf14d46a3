// The facts the extension answers the language server with: the note list and id descriptions,
// never carrying the text of secret or quarantined items.
import * as assert from 'node:assert/strict';
import type { Item } from '../../../src/engine/store/repositories';
import { describeItem, noteInfosOf } from '../../../src/vscode/language/languageFacts';

function item(p: Partial<Item> & { id: string }): Item {
  return {
    kind: 'note', subkind: null, text: null, blobHash: null, title: null, summary: null, role: null, trust: 'owner', prevTrust: null,
    untrusted: false, secret: false, pinned: false, tags: [], provider: null, model: null, entryPath: null, conversation: null,
    project: null, projectType: null, language: null, importance: null, salience: null, accessCount: 0, lastAccessed: null,
    created: Date.UTC(2026, 2, 4), updated: null, validFrom: null, invalidatedAt: null, expiresAt: null, archivedAt: null,
    originalId: null, sourceType: null, path: null, contentHash: null, fileMtime: null, fileSize: null, meta: {}, ...p,
  };
}

describe('Language facts from store items', () => {
  it('lists notes by path with their name and summary, leaving hidden folders and non-notes out', () => {
    const notes = noteInfosOf([
      item({ id: 'vt:semantic/b.md', path: 'semantic/b.md', summary: 'Bee' }),
      item({ id: 'vt:.quarantine/q1/x.md', path: '.quarantine/q1/x.md', summary: 'hidden' }),
      item({ id: 'rw:1', kind: 'raw', path: null }),
      item({ id: 'vt:semantic/a.md', path: 'semantic/a.md', summary: 'Aye', tags: ['contains-secrets'] }),
    ]);
    assert.deepEqual(notes, [
      { id: 'vt:semantic/a.md', relPath: 'semantic/a.md', title: 'a', summary: '' },
      { id: 'vt:semantic/b.md', relPath: 'semantic/b.md', title: 'b', summary: 'Bee' },
    ]);
  });

  it('describes an item with kind, trust, created and a capped summary', () => {
    const d = describeItem(item({ id: 'vt:semantic/a.md', subkind: 'user', summary: 'x '.repeat(300) }), () => '');
    assert.equal(d.kind, 'note');
    assert.equal(d.subkind, 'user');
    assert.equal(d.created, '2026-03-04T00:00:00.000Z');
    assert.ok(d.summary && d.summary.length <= 200 && d.summary.endsWith('…'));
  });

  it('reads a raw message\'s text through textOf when it has no summary', () => {
    const d = describeItem(item({ id: 'rw:1', kind: 'raw', role: 'user' }), () => 'the original words');
    assert.deepEqual([d.subkind, d.summary], ['user', 'the original words']);
  });

  it('withholds the text of secret and quarantined items', () => {
    const secret = describeItem(item({ id: 'rw:2', kind: 'raw', secret: true, text: 'password: x' }), () => { throw new Error('not read'); });
    assert.deepEqual([secret.withheld, secret.summary], ['secret', undefined]);
    const quarantined = describeItem(item({ id: 'rw:3', kind: 'raw', trust: 'quarantined', summary: 'bad' }), () => '');
    assert.deepEqual([quarantined.withheld, quarantined.summary], ['quarantined', undefined]);
  });
});

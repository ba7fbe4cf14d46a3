// The vault language server over a real JSON-RPC connection, with a fake extension side answering
// `memory/notes` and `memory/describe`: completion, definition, references (backlinks), hover and
// diagnostics on notes in a temp vault; one run against the bundled dist/server.js in its own process.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { CompletionItem, Hover, Location, MarkupContent } from 'vscode-languageserver/node';
import type { NoteInfo } from '../../../src/protocol/language';
import { FakeExtension } from './lspHarness';

const FILES: Record<string, string> = {
  'semantic/editor.md': '---\nkind: user\nsummary: Uses VS Code with vim keys\n---\n# Editor\n\nIntro.\n\n## Keys\nvim\n',
  'semantic/coffee.md': 'Prefers espresso. See [[editor]] and [[Editor#Keys]].\n',
  'projects/alpha/notes.md': 'Alpha uses [[semantic/editor|the editor]] and [[missing note]].\n\n```\n[[in code]]\n```\n',
};

function noteInfo(relPath: string, summary = ''): NoteInfo {
  return { id: `vt:${relPath}`, relPath, title: relPath.slice(relPath.lastIndexOf('/') + 1).replace(/\.md$/, ''), summary };
}

function makeVault(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'memory-ls-'));
  for (const [rel, text] of Object.entries(FILES)) {
    mkdirSync(path.join(dir, path.dirname(rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

describe('The vault language server', () => {
  let vault: string;
  let fake: FakeExtension;

  beforeEach(async () => {
    vault = makeVault();
    fake = FakeExtension.inProcess(vault);
    fake.notes = [noteInfo('projects/alpha/notes.md'), noteInfo('semantic/coffee.md', 'Prefers espresso.'), noteInfo('semantic/editor.md', 'Uses VS Code with vim keys')];
    await fake.start();
  });
  afterEach(async () => {
    await fake.dispose();
    rmSync(vault, { recursive: true, force: true });
  });

  describe('completion', () => {
    it('lists the other notes after [[ with their summary, closing the link', async () => {
      await fake.open('semantic/coffee.md', 'Try [[');
      const items = await fake.request<CompletionItem[]>('textDocument/completion', 'semantic/coffee.md', 0, 6);
      assert.deepEqual(items.map((i) => i.label).sort(), ['editor', 'notes']);
      const editor = items.find((i) => i.label === 'editor')!;
      assert.equal(editor.detail, 'semantic/editor.md');
      assert.equal((editor.documentation as MarkupContent).value, 'Uses VS Code with vim keys');
      assert.deepEqual(editor.textEdit, { range: { start: { line: 0, character: 6 }, end: { line: 0, character: 6 } }, newText: 'editor]]' });
    });

    it('replaces the typed prefix and does not add ]] when the link is already closed', async () => {
      await fake.open('semantic/coffee.md', 'Try [[edi]] now');
      const items = await fake.request<CompletionItem[]>('textDocument/completion', 'semantic/coffee.md', 0, 9);
      const editor = items.find((i) => i.label === 'editor')!;
      assert.deepEqual(editor.textEdit, { range: { start: { line: 0, character: 6 }, end: { line: 0, character: 9 } }, newText: 'editor' });
    });

    it('uses the path when two notes share a name', async () => {
      fake.notes = [...fake.notes, noteInfo('procedural/editor.md')];
      await fake.notesChanged();
      await fake.open('semantic/coffee.md', '[[');
      const items = await fake.request<CompletionItem[]>('textDocument/completion', 'semantic/coffee.md', 0, 2);
      assert.deepEqual(items.map((i) => i.label).sort(), ['notes', 'procedural/editor', 'semantic/editor']);
    });

    it('offers nothing outside a link, after a heading mark, or for a file outside the vault', async () => {
      await fake.open('semantic/coffee.md', 'plain text [[editor#Ke');
      assert.deepEqual(await fake.request<CompletionItem[]>('textDocument/completion', 'semantic/coffee.md', 0, 5), []);
      assert.deepEqual(await fake.request<CompletionItem[]>('textDocument/completion', 'semantic/coffee.md', 0, 22), []);
      const outside = path.join(path.dirname(vault), 'elsewhere.md');
      const uri = `file://${outside}`;
      await fake.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'markdown', version: 1, text: '[[' } });
      assert.deepEqual(await fake.conn.sendRequest('textDocument/completion', { textDocument: { uri }, position: { line: 0, character: 2 } }), []);
    });
  });

  describe('go to definition', () => {
    it('points a wikilink at its note file', async () => {
      await fake.open('semantic/coffee.md', FILES['semantic/coffee.md']);
      const loc = await fake.request<Location>('textDocument/definition', 'semantic/coffee.md', 0, 25);
      assert.equal(loc.uri, fake.uri('semantic/editor.md'));
      assert.deepEqual(loc.range.start, { line: 0, character: 0 });
    });

    it('points a #heading link at that heading\'s line', async () => {
      await fake.open('semantic/coffee.md', FILES['semantic/coffee.md']);
      const loc = await fake.request<Location>('textDocument/definition', 'semantic/coffee.md', 0, 40);
      assert.equal(loc.uri, fake.uri('semantic/editor.md'));
      assert.equal(loc.range.start.line, 8, 'the "## Keys" line');
    });

    it('finds nothing for a broken link or off a link', async () => {
      await fake.open('projects/alpha/notes.md', FILES['projects/alpha/notes.md']);
      assert.equal(await fake.request('textDocument/definition', 'projects/alpha/notes.md', 0, 50), null);
      assert.equal(await fake.request('textDocument/definition', 'projects/alpha/notes.md', 0, 2), null);
    });
  });

  describe('references', () => {
    it('lists the backlinks of the current note with each link\'s range', async () => {
      await fake.open('semantic/editor.md', FILES['semantic/editor.md']);
      const locs = await fake.request<Location[]>('textDocument/references', 'semantic/editor.md', 5, 0, { context: { includeDeclaration: false } });
      const got = locs.map((l) => `${path.relative(vault, new URL(l.uri).pathname)}@${l.range.start.line}:${l.range.start.character}-${l.range.end.character}`).sort();
      assert.deepEqual(got, [
        'projects/alpha/notes.md@0:11-41',
        'semantic/coffee.md@0:22-32',
        'semantic/coffee.md@0:37-52',
      ]);
    });

    it('lists the linked note\'s backlinks when the cursor is on a link, using unsaved text of open notes', async () => {
      await fake.open('projects/alpha/notes.md', 'Now only [[coffee]].\n');
      await fake.open('semantic/editor.md', FILES['semantic/editor.md']);
      const locs = await fake.request<Location[]>('textDocument/references', 'projects/alpha/notes.md', 0, 12, { context: { includeDeclaration: false } });
      assert.deepEqual(locs.map((l) => l.uri), [fake.uri('projects/alpha/notes.md')]);
      const editorRefs = await fake.request<Location[]>('textDocument/references', 'semantic/editor.md', 0, 0, { context: { includeDeclaration: false } });
      assert.equal(editorRefs.length, 2, 'the open notes.md no longer links to editor');
    });
  });

  describe('diagnostics', () => {
    it('flags a wikilink that resolves to no note, not links in code', async () => {
      await fake.open('projects/alpha/notes.md', FILES['projects/alpha/notes.md']);
      const diags = await fake.diagnosticsOf('projects/alpha/notes.md', (d) => d.length > 0);
      assert.deepEqual(diags.map((d) => [d.code, d.range.start.line, d.range.start.character, d.range.end.character, d.source]),
        [['broken_link', 0, 46, 62, 'memory']]);
      assert.match(String(diags[0].message), /missing note/);
    });

    it('clears a broken link once the note appears in the index', async () => {
      await fake.open('projects/alpha/notes.md', FILES['projects/alpha/notes.md']);
      await fake.diagnosticsOf('projects/alpha/notes.md', (d) => d.length === 1);
      fake.notes = [...fake.notes, noteInfo('semantic/missing note.md')];
      await fake.conn.sendNotification('memory/notesChanged');
      await fake.diagnosticsOf('projects/alpha/notes.md', (d) => d.length === 0);
    });

    it('updates as the note is edited', async () => {
      await fake.open('semantic/coffee.md', 'ok [[editor]]');
      await fake.diagnosticsOf('semantic/coffee.md', (d) => d.length === 0);
      await fake.change('semantic/coffee.md', 'ok [[editr]]');
      const d = await fake.diagnosticsOf('semantic/coffee.md', (x) => x.length === 1);
      assert.equal(d[0].code, 'broken_link');
    });

    it('points an unknown kind and a trust raise at their frontmatter lines', async () => {
      const text = '---\nsummary: x\nkind: opinion\norigin:\n  by: capture\ntrust: owner\n---\nBody.\n';
      await fake.open('semantic/x.md', text);
      const d = await fake.diagnosticsOf('semantic/x.md', (x) => x.length >= 2);
      const byCode = new Map(d.map((x) => [String(x.code), x]));
      assert.equal(byCode.get('unknown_kind')?.range.start.line, 2);
      assert.match(String(byCode.get('unknown_kind')!.message), /Known kinds: user, feedback/);
      assert.equal(byCode.get('trust_raise_ignored')?.range.start.line, 5);
      assert.match(String(byCode.get('trust_raise_ignored')!.message), /stays derived/);
    });

    it('reports malformed YAML as an error inside the frontmatter', async () => {
      await fake.open('semantic/bad.md', '---\nkind: user\ntags: [a, b\nsummary: x\n---\nBody.\n');
      const d = await fake.diagnosticsOf('semantic/bad.md', (x) => x.length >= 1);
      const bad = d.find((x) => x.code === 'malformed_frontmatter')!;
      assert.equal(bad.severity, 1);
      assert.ok(bad.range.start.line >= 1 && bad.range.start.line <= 4, `line ${bad.range.start.line} is in the frontmatter`);
    });

    it('warns about a likely secret unless the note is tagged contains-secrets, without quoting it', async () => {
      const key = 'sk-proj-' + 'a1B2c3D4e5F6g7H8i9J0kLmN';
      await fake.open('semantic/keys.md', `# Keys\n\nThe key is ${key} for now.\n`);
      const d = await fake.diagnosticsOf('semantic/keys.md', (x) => x.length === 1);
      assert.equal(d[0].code, 'likely_secret');
      assert.equal(d[0].range.start.line, 2);
      assert.match(String(d[0].message), /api_key/);
      assert.ok(!String(d[0].message).includes(key), 'the message does not quote the key');
      await fake.change('semantic/keys.md', `---\ntags: [contains-secrets]\n---\nThe key is ${key} for now.\n`);
      await fake.diagnosticsOf('semantic/keys.md', (x) => x.length === 0);
    });
  });

  describe('hover', () => {
    it('describes a memory id through memory/describe', async () => {
      fake.describe = (id) => ({ id, kind: 'note', subkind: 'user', trust: 'owner', created: '2026-03-04T10:00:00.000Z', summary: 'Uses VS Code with *vim* keys' });
      await fake.open('semantic/coffee.md', 'As said in vt:semantic/editor.md.\n');
      const h = await fake.request<Hover>('textDocument/hover', 'semantic/coffee.md', 0, 16);
      assert.deepEqual(fake.describeCalls, ['vt:semantic/editor.md']);
      const value = (h.contents as MarkupContent).value;
      assert.match(value, /note \\\(user\\\) · trust owner · created 2026-03-04/);
      assert.match(value, /Uses VS Code with \\\*vim\\\* keys/, 'note text is escaped, not rendered as Markdown');
      assert.deepEqual(h.range, { start: { line: 0, character: 11 }, end: { line: 0, character: 32 } });
    });

    it('never shows the text of a withheld memory and says when an id is unknown', async () => {
      fake.describe = (id) => (id === 'rw:abc123' ? { id, kind: 'raw', trust: 'peer', created: '2026-01-01T00:00:00.000Z', withheld: 'quarantined' } : null);
      await fake.open('semantic/coffee.md', 'rw:abc123 and gs:nothing');
      const h1 = await fake.request<Hover>('textDocument/hover', 'semantic/coffee.md', 0, 3);
      assert.match((h1.contents as MarkupContent).value, /Text withheld: quarantined/);
      const h2 = await fake.request<Hover>('textDocument/hover', 'semantic/coffee.md', 0, 18);
      assert.match((h2.contents as MarkupContent).value, /no memory has this id/);
    });

    it('shows the linked note\'s summary over a wikilink', async () => {
      await fake.open('semantic/coffee.md', FILES['semantic/coffee.md']);
      const h = await fake.request<Hover>('textDocument/hover', 'semantic/coffee.md', 0, 25);
      assert.match((h.contents as MarkupContent).value, /semantic\/editor\.md\*\*\n\nUses VS Code with vim keys/);
    });
  });

  it('flags no broken links when the extension cannot answer the note list', async () => {
    const other = FakeExtension.inProcess(vault);
    other.conn.onRequest('memory/notes', () => { throw new Error('engine closed'); });
    try {
      await other.start();
      assert.ok(other.logs.some((l) => l.startsWith('notes.failed')));
      await other.open('projects/alpha/notes.md', FILES['projects/alpha/notes.md'] + '\n---\nkind: nope\n');
      const d = await other.diagnosticsOf('projects/alpha/notes.md', () => true);
      assert.deepEqual(d.filter((x) => x.code === 'broken_link'), []);
    } finally {
      await other.dispose();
    }
  });
});

describe('The bundled language server (dist/server.js)', () => {
  const serverJs = path.resolve(__dirname, '../../../../dist/server.js');

  it('answers completion and publishes a broken-link diagnostic from its own process', async function () {
    if (!existsSync(serverJs)) this.skip();
    const vault = makeVault();
    const fake = FakeExtension.spawned(vault, serverJs);
    try {
      fake.notes = [noteInfo('semantic/editor.md', 'Uses VS Code with vim keys')];
      await fake.start();
      await fake.open('semantic/coffee.md', 'See [[nowhere]] and [[');
      const d = await fake.diagnosticsOf('semantic/coffee.md', (x) => x.length === 1);
      assert.equal(d[0].code, 'broken_link');
      const items = await fake.request<CompletionItem[]>('textDocument/completion', 'semantic/coffee.md', 0, 22);
      assert.deepEqual(items.map((i) => i.label), ['editor']);
      assert.ok(fake.logs.every((l) => !l.includes('vim keys')), 'no note text in the server log');
    } finally {
      await fake.dispose();
      rmSync(vault, { recursive: true, force: true });
    }
  });
});

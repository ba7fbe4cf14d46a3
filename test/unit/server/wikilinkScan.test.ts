// Offsets of wikilinks, headings, memory ids and the `[[` completion context in note text.
import * as assert from 'node:assert/strict';
import { findHeading, linkPrefixAt, memoryIdAt, scanWikilinks } from '../../../src/server/wikilinkScan';
import { escapeMd } from '../../../src/server/memoryLanguageServer';

describe('Wikilink scanning for the language server', () => {
  it('finds links with their offsets, heading, alias and embed mark', () => {
    const text = 'a [[One]] b ![[dir/Two#Part|shown]] c';
    const links = scanWikilinks(text);
    assert.deepEqual(links.map((l) => text.slice(l.start, l.end)), ['[[One]]', '![[dir/Two#Part|shown]]']);
    assert.deepEqual(links[1], { start: 12, end: 35, target: 'dir/Two', heading: 'Part', alias: 'shown', embed: true });
  });

  it('skips links in frontmatter, code fences, inline code and comments, keeping body offsets right', () => {
    const text = '---\nsummary: "[[fm]]"\n---\n`[[inline]]`\n```\n[[fenced]]\n```\n<!-- [[comment]] -->\nreal [[Yes]]\n';
    const links = scanWikilinks(text);
    assert.deepEqual(links.map((l) => text.slice(l.start, l.end)), ['[[Yes]]']);
  });

  it('keeps a same-note heading link with an empty target', () => {
    const links = scanWikilinks('see [[#Setup|setup]]');
    assert.deepEqual(links.map((l) => [l.target, l.heading, l.alias]), [['', 'Setup', 'setup']]);
  });

  it('finds a heading by its text, case-insensitively, not in code or frontmatter', () => {
    const text = '---\n# not: heading\n---\n```\n## Keys\n```\nx\n## keys ##\n';
    assert.equal(findHeading(text, 'KEYS'), text.indexOf('## keys ##'));
    assert.equal(findHeading(text, 'not: heading'), undefined);
  });

  it('finds the memory id under the cursor without trailing punctuation', () => {
    const line = 'see vt:semantic/editor.md. and (rw:3f2a9c), fa:x';
    assert.deepEqual(memoryIdAt(line, 10), { id: 'vt:semantic/editor.md', start: 4, end: 25 });
    assert.deepEqual(memoryIdAt(line, 35), { id: 'rw:3f2a9c', start: 32, end: 41 });
    assert.equal(memoryIdAt(line, 1), undefined);
    assert.equal(memoryIdAt('http://vt:x', 8), undefined, 'not inside a URL');
  });

  it('reports the note-name prefix after [[ and whether ]] follows', () => {
    assert.deepEqual(linkPrefixAt('x [[edi', 7), { start: 4, prefix: 'edi', closed: false });
    assert.deepEqual(linkPrefixAt('x [[edi]] y', 7), { start: 4, prefix: 'edi', closed: true });
    assert.deepEqual(linkPrefixAt('x [[ed [[b]]', 6), { start: 4, prefix: 'ed', closed: false });
    assert.equal(linkPrefixAt('x [[a]] b', 9), undefined);
    assert.equal(linkPrefixAt('x [[a#h', 7), undefined);
    assert.equal(linkPrefixAt('x [[a|b', 7), undefined);
  });

  it('escapes Markdown in note text so a summary cannot render links, images or lists', () => {
    assert.equal(escapeMd('![x](http://e) <b>'), '\\!\\[x\\]\\(http://e\\) \\<b\\>');
    assert.equal(escapeMd('- item'), '\\- item');
    assert.equal(escapeMd('1. first'), '1\\. first');
    assert.equal(escapeMd('v1.2-beta'), 'v1.2-beta');
  });
});

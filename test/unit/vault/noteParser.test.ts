import assert from 'node:assert/strict';
import { appendHistory, parseNote, serializeNote } from '../../../src/engine/vault/noteParser';
import { isMemoryError } from '../../../src/engine/errors';

const codes = (n: { problems: { code: string }[] }) => n.problems.map((p) => p.code);

describe('parseNote', () => {
  describe('bad input', () => {
    it('keeps the body of a note whose frontmatter YAML is malformed and reports it', () => {
      const n = parseNote('semantic/bad.md', '---\nkind: [user\nsummary: "x\n---\nThe body survives.\n');
      assert.deepEqual(codes(n), ['malformed_frontmatter']);
      assert.equal(n.body, 'The body survives.\n');
      assert.equal(n.summary, 'The body survives.');
      assert.equal(n.kind, 'reference');
      assert.equal(n.skipped, false);
    });

    it('treats a frontmatter that is not a map as malformed', () => {
      assert.deepEqual(codes(parseNote('a.md', '---\n- just\n- a list\n---\nbody')), ['malformed_frontmatter']);
    });

    it('never evaluates a ---js frontmatter block', () => {
      (globalThis as Record<string, unknown>).__pwned = false;
      const n = parseNote('a.md', '---js\n{ x: (globalThis.__pwned = true) }\n---\nbody');
      assert.equal((globalThis as Record<string, unknown>).__pwned, false);
      assert.equal(n.hasFrontmatter, false);
    });

    it('keeps an unclosed leading --- as body text', () => {
      const n = parseNote('a.md', '---\nno closing line here\n');
      assert.equal(n.hasFrontmatter, false);
      assert.equal(n.summary, 'no closing line here');
    });

    it('skips binary content with a problem code', () => {
      const n = parseNote('semantic/img.md', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]));
      assert.equal(n.skipped, true);
      assert.deepEqual(codes(n), ['binary']);
    });

    it('skips a file over 1 MB with a problem code', () => {
      const n = parseNote('semantic/huge.md', Buffer.alloc(1024 * 1024 + 1, 0x61));
      assert.equal(n.skipped, true);
      assert.deepEqual(codes(n), ['too_large']);
    });

    it('decodes invalid UTF-8 with replacement characters and reports it', () => {
      const n = parseNote('semantic/latin1.md', Buffer.from([0x47, 0x72, 0xfc, 0xdf, 0x65, 0x0a]));
      assert.equal(n.skipped, false);
      assert.deepEqual(codes(n), ['invalid_utf8']);
      assert.equal(n.body, 'Gr\uFFFD\uFFFDe\n');
    });

    it('reports an unknown kind and falls back to the default', () => {
      const n = parseNote('procedural/x.md', '---\nkind: boss\n---\nRule');
      assert.equal(n.kind, 'feedback');
      assert.deepEqual(codes(n), ['unknown_kind']);
    });
  });

  describe('no frontmatter and defaults', () => {
    it('parses a hand-written note without frontmatter', () => {
      const n = parseNote('semantic/Coffee.md', '# Coffee\n\nI drink it black.\n');
      assert.equal(n.hasFrontmatter, false);
      assert.deepEqual(n.frontmatter, {});
      assert.equal(n.summary, 'Coffee');
      assert.equal(n.trust, 'owner');
      assert.equal(n.id, 'vt:semantic/Coffee.md');
      assert.deepEqual(n.problems, []);
    });

    it('defaults kind to feedback in procedural/ and to reference elsewhere, never user', () => {
      assert.equal(parseNote('procedural/tabs.md', 'Use tabs').kind, 'feedback');
      assert.equal(parseNote('semantic/me.md', 'I am Ana').kind, 'reference');
      assert.equal(parseNote('projects/p1/x.md', 'x').kind, 'reference');
      assert.equal(parseNote('about-me.md', 'I am Ana').kind, 'reference');
      assert.equal(parseNote('semantic/me.md', '---\nkind: User\n---\nI am Ana').kind, 'user');
    });

    it('takes the summary from frontmatter, else the first real line', () => {
      assert.equal(parseNote('a.md', '---\nsummary: From FM\n---\nbody').summary, 'From FM');
      const body = '<!-- hidden\ncomment -->\n\n---\n\n```\ncode\n```\n\n> - [ ] Real line here #tag\nnext';
      assert.equal(parseNote('a.md', body).summary, 'Real line here #tag');
      assert.equal(parseNote('folder/Empty Note.md', '---\nkind: domain\n---\n\n').summary, 'Empty Note');
      assert.equal(parseNote('a.md', 'x '.repeat(300)).summary.length <= 280, true);
    });
  });

  describe('trust', () => {
    it('makes a captured note derived and keeps it derived when it claims owner', () => {
      const n = parseNote('semantic/c.md', '---\ntrust: owner\norigin:\n  by: capture\n  provider: openai\n  model: gpt\n  conversation: c1\n---\nFact');
      assert.equal(n.trust, 'derived');
      assert.deepEqual(n.origin, { by: 'capture', provider: 'openai', model: 'gpt', conversation: 'c1' });
      assert.deepEqual(codes(n), ['trust_raise_ignored']);
    });

    it('keeps a captured note derived after its origin was removed by hand (knownDerived)', () => {
      const n = parseNote('semantic/c.md', '---\ntrust: owner\n---\nFact', { knownDerived: true });
      assert.equal(n.trust, 'derived');
    });

    it('lets trust lower the level and ignores unknown values', () => {
      assert.equal(parseNote('a.md', '---\ntrust: peer\n---\nx').trust, 'peer');
      assert.equal(parseNote('a.md', '---\ntrust: quarantined\norigin: {by: capture}\n---\nx').trust, 'quarantined');
      const n = parseNote('a.md', '---\ntrust: god\n---\nx');
      assert.equal(n.trust, 'owner');
      assert.deepEqual(codes(n), ['unknown_trust']);
    });

    it('treats consolidation notes and the auto-consolidated tag as derived, imports as owner', () => {
      assert.equal(parseNote('a.md', '---\norigin: {by: consolidation}\n---\nx').trust, 'derived');
      assert.equal(parseNote('a.md', '---\ntags: [auto-consolidated]\n---\nx').trust, 'derived');
      assert.equal(parseNote('a.md', '---\norigin: {by: import}\n---\nx').trust, 'owner');
    });
  });

  describe('tags and scope', () => {
    it('collects frontmatter tags (list or comma string) and body #tags outside code, URLs and headings', () => {
      const n = parseNote('a.md', '---\ntags: Alpha, beta\n---\n# Title\nText #gamma and #beta, #123 no.\n`#code` ```x``` see https://x.org/#frag and [l](u#x)\n```\n#fenced\n```\n#Δelta #a/b');
      assert.deepEqual(n.tags, ['alpha', 'beta', 'gamma', 'δelta', 'a/b']);
      assert.deepEqual(parseNote('a.md', '---\ntags:\n  - "#Secret-Stuff"\n  - contains-secrets\n---\nx').tags, ['secret-stuff', 'contains-secrets']);
      assert.equal(parseNote('a.md', '---\ntags: [contains-secrets]\n---\nx').containsSecrets, true);
    });

    it('lets frontmatter decide scope and falls back to the folder', () => {
      const s = (rel: string, fm: string) => { const n = parseNote(rel, `---\n${fm}\n---\nx`); return [n.project, n.projectType]; };
      assert.deepEqual(s('semantic/a.md', 'project: p1\nprojectType: web'), ['p1', undefined]);
      assert.deepEqual(s('semantic/a.md', 'projectType: web'), [undefined, 'web']);
      assert.deepEqual(s('projects/p2/a.md', 'kind: project'), ['p2', undefined]);
      assert.deepEqual(s('project-types/cli/a.md', 'kind: domain'), [undefined, 'cli']);
      assert.deepEqual(s('projects/p2/a.md', 'projectType: web'), [undefined, 'web']);
      assert.deepEqual(s('semantic/a.md', 'kind: project'), [undefined, undefined]);
    });

    it('reads pinned', () => {
      assert.equal(parseNote('a.md', '---\npinned: true\n---\nx').pinned, true);
      assert.equal(parseNote('a.md', 'x').pinned, false);
    });
  });

  describe('wikilinks', () => {
    it('extracts plain, aliased, heading and folder links, and embeds, but not links in code', () => {
      const n = parseNote('a.md', 'See [[Note]], [[Other|the other]], [[folder/Deep#Part 2]] and ![[pic.png]].\n`[[inline]]`\n```\n[[fenced]]\n```\n[[#Local heading]] [[ Spaced Name ]]');
      assert.deepEqual(n.links.map((l) => [l.target, l.heading, l.alias, l.embed, l.line]), [
        ['Note', undefined, undefined, false, 0],
        ['Other', undefined, 'the other', false, 0],
        ['folder/Deep', 'Part 2', undefined, false, 0],
        ['pic.png', undefined, undefined, true, 0],
        ['Spaced Name', undefined, undefined, false, 5],
      ]);
    });
  });
});

describe('appendHistory', () => {
  it('creates the section when missing and keeps the rest byte-identical', () => {
    const orig = '---\nkind: user\nsummary: Likes tea\n---\nLikes tea.\n';
    const out = appendHistory(orig, '2024-05-01T10:00:00Z', 'Said again:\nstill tea');
    assert.equal(out, orig + '\n## History\n\n- 2024-05-01: Said again: still tea\n');
  });

  it('appends after the last bullet of an existing section and before the next section', () => {
    const orig = '# T\n\n## History\n\n- 2024-01-01: first\n\n## Notes\nkeep me\n';
    const out = appendHistory(orig, '2024-02-02', 'second');
    assert.equal(out, '# T\n\n## History\n\n- 2024-01-01: first\n- 2024-02-02: second\n\n## Notes\nkeep me\n');
  });

  it('preserves CRLF endings, a missing final newline and ignores ## History inside code', () => {
    const crlf = 'Body\r\n\r\n## History\r\n\r\n- 2024-01-01: a\r\n';
    assert.equal(appendHistory(crlf, '2024-01-02', 'b'), 'Body\r\n\r\n## History\r\n\r\n- 2024-01-01: a\r\n- 2024-01-02: b\r\n');
    assert.equal(appendHistory('x\n## History\n- 2024-01-01: a', '2024-01-02', 'b'), 'x\n## History\n- 2024-01-01: a\n- 2024-01-02: b');
    const fenced = '```\n## History\n```\n';
    assert.equal(appendHistory(fenced, '2024-01-02', 'b'), fenced + '\n## History\n\n- 2024-01-02: b\n');
  });

  it('refuses a bad date or empty text', () => {
    assert.throws(() => appendHistory('x', 'yesterday', 'b'), (e) => isMemoryError(e, 'E_BAD_INPUT'));
    assert.throws(() => appendHistory('x', '2024-01-01', '  '), (e) => isMemoryError(e, 'E_BAD_INPUT'));
  });
});

describe('serializeNote', () => {
  it('writes frontmatter keys in a stable order and parses back', () => {
    const text = serializeNote({ frontmatter: { zeta: 1, origin: { by: 'capture', model: undefined }, summary: 'S: colon', kind: 'user', tags: ['a'] }, body: 'Body\n' });
    assert.equal(text, "---\nkind: user\nsummary: 'S: colon'\ntags:\n  - a\norigin:\n  by: capture\nzeta: 1\n---\nBody\n");
    const n = parseNote('a.md', text);
    assert.equal(n.summary, 'S: colon');
    assert.equal(n.trust, 'derived');
  });

  it('keeps a body that starts with --- from turning into frontmatter', () => {
    const text = serializeNote({ body: '---\nnot: yaml\n---\nx' });
    const n = parseNote('a.md', text);
    assert.equal(n.body, '---\nnot: yaml\n---\nx');
  });
});

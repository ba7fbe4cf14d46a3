import * as assert from 'node:assert/strict';
import {
  countDecisions, deriveLabel, extractEntities, extractFacts, extractTopics, factKey, resolveFact, scoreImportance, StoredFact, summarize,
} from '../../../src/engine/write/derive';

describe('deterministic derivation', () => {
  describe('facts', () => {
    it('reads key: value lines and normalises the subject into a key', () => {
      const f = extractFacts('Deadline: Friday\n- **Owner**: @maria\nTarget model: gpt-x');
      assert.deepEqual(f.map((x) => [x.subject, x.value, x.key]), [
        ['Deadline', 'Friday', 'deadline'], ['Owner', '@maria', 'owner'], ['Target model', 'gpt-x', 'target model'],
      ]);
      assert.equal(factKey(' Target_Model '), factKey('target model'));
    });

    it('ignores URLs, times, code, headings and labels', () => {
      const text = [
        'See https://example.com/x', 'We meet at 10:30 tomorrow', '# Deadline: not a fact', '```', 'key: inside code', '```',
        'const x = { a: 1 }', 'Note: this is just a remark', 'If you ask me what I think about all of this: no',
      ].join('\n');
      assert.deepEqual(extractFacts(text), []);
    });

    it('does not turn chat prose that opens with a discourse marker into a fact', () => {
      assert.deepEqual(extractFacts('Noted: pnpm workspaces with Node 22. I will keep the Friday deadline in mind.'), []);
      assert.deepEqual(extractFacts('Answer number 3: use the blue-green pipeline with a manual approval step.'), []);
      for (const t of ['Sure: I can do that.', 'Übrigens: der Build ist wieder grün.', 'Szóval: holnap deployolunk.',
        'Bueno: lo vemos mañana.', 'Donc : on livre lundi.', 'Update: merged.', 'Ok so: that works.', 'If you ask me: no']) {
        assert.deepEqual(extractFacts(t), [], t);
      }
    });

    it('does not keep a value longer than one sentence of 120 characters', () => {
      assert.deepEqual(extractFacts('Plan: ' + 'we migrate the billing tables first and then the ledger, '.repeat(3)), []);
    });

    it('still extracts genuine labelled facts in five languages, several per line', () => {
      const f = extractFacts('deadline: Friday\nRegion: eu-west-1\nOwner: Alice\nDatenbank: Postgres 16\nhatáridő: péntek\nFecha límite: viernes\nÉchéance : vendredi');
      assert.deepEqual(f.map((x) => [x.key, x.value]), [
        ['deadline', 'Friday'], ['region', 'eu-west-1'], ['owner', 'Alice'], ['datenbank', 'Postgres 16'], ['határidő', 'péntek'],
        ['fecha límite', 'viernes'], ['échéance', 'vendredi'],
      ]);
      assert.deepEqual(extractFacts('Deadline: Friday. Owner: Alice. Region: eu-west-1.').map((x) => [x.key, x.value]), [
        ['deadline', 'Friday'], ['owner', 'Alice'], ['region', 'eu-west-1'],
      ]);
      assert.deepEqual(extractFacts('Database: Postgres 16. We picked it for JSONB.').map((x) => [x.key, x.value]), [['database', 'Postgres 16']]);
    });

    it('links the same fact, supersedes a new value for the same subject, and adds a new subject', () => {
      const existing: StoredFact[] = [];
      const first = extractFacts('deadline: Monday')[0];
      assert.equal(resolveFact(existing, first), 'new');
      existing.push({ id: 'fa:1', subject: first.subject, value: first.value, validFrom: '2024-05-01T00:00:00Z' });
      assert.equal(resolveFact(existing, extractFacts('Deadline: Friday')[0]), 'supersedes');
      existing.push({ id: 'fa:2', subject: 'Deadline', value: 'Friday', validFrom: '2024-05-02T00:00:00Z' });
      assert.equal(resolveFact(existing, extractFacts('deadline: friday.')[0]), 'same');
      assert.equal(resolveFact(existing, extractFacts('Owner: Anna')[0]), 'new');
    });
  });

  describe('summary', () => {
    const msgs = [
      { role: 'user', text: 'Our ingest job keeps timing out at night. Can you look at the logs?' },
      { role: 'assistant', text: 'The ingest job collides with the reporting queries at 02:00. Postgres locks the table. The reporting queries take 40 minutes.' },
      { role: 'user', text: 'Can we move the ingest job? The reporting queries must stay at 02:00.' },
      { role: 'assistant', text: 'Yes. Move the ingest job to 04:00 and add an index on created_at. That removes the lock wait.' },
      { role: 'user', text: 'We decided: ingest moves to 04:00, index goes in on Friday.' },
    ];
    it('is at most 280 characters and keeps the first and last message', () => {
      const s = summarize(msgs);
      assert.ok([...s].length <= 280, s);
      assert.ok(s.startsWith('Our ingest job keeps timing out'));
      assert.ok(s.includes('We decided'));
    });
    it('respects any smaller limit, also on a single very long message', () => {
      assert.ok([...summarize([{ role: 'user', text: 'word '.repeat(5000) }], 100)].length <= 100);
      assert.ok([...summarize(msgs, 60)].length <= 60);
      assert.equal(summarize([]), '');
    });
  });

  describe('entities', () => {
    const types = (t: string) => extractEntities(t).map((e) => `${e.type}:${e.norm}`);
    it('finds dates in ISO, English, German, Hungarian, Spanish and French formats', () => {
      const got = types('ISO 2024-05-14, May 8, 2023, 8 May 2023, am 14.05.2024 und 14. Mai 2024, 2024. május 14., 2024.05.14, el 14 de mayo de 2024, le 14 mai 2024, 14/05/2024');
      for (const d of ['date:2024-05-14', 'date:2023-05-08']) assert.ok(got.includes(d), got.join(' '));
      assert.equal(got.filter((g) => g.startsWith('date:')).length, 2, 'all formats normalise to two distinct dates');
    });
    it('finds mentions, tickets, identifiers, backticked terms and names', () => {
      const got = types('Ask @maria.k about #123 and ABC-42. The fix is in parseConfig and load_settings of src.engine.store; see `journal replay`. Ada Lovelace reviewed it with Grace Hopper.');
      for (const e of ['mention:@maria.k', 'ticket:#123', 'ticket:ABC-42', 'identifier:parseconfig', 'identifier:load_settings',
        'identifier:src.engine.store', 'term:journal replay', 'name:ada lovelace', 'name:grace hopper']) assert.ok(got.includes(e), `${e} in ${got.join(' ')}`);
    });
    it('does not take sentence-initial stop words, emails or UTF-8 for names, mentions or tickets', () => {
      const got = types('The Build was green. We met Anna. Mail bob@example.com about UTF-8.');
      assert.ok(!got.some((g) => g.startsWith('name:the')), got.join(' '));
      assert.ok(!got.includes('mention:@example.com'));
      assert.ok(!got.some((g) => g.startsWith('ticket:UTF')));
      assert.ok(got.includes('name:anna'));
    });
  });

  it('extracts frequent content words as topics', () => {
    const t = extractTopics('The ingest job failed. The ingest job is scheduled nightly; ingest retries twice. Postgres locks.');
    assert.equal(t[0], 'ingest');
    assert.ok(t.length <= 5);
  });

  describe('importance', () => {
    const base = { role: 'user', text: 'We talked about the build for a while and looked at the failing tests together.' };
    it('recognises decision phrases in English, German, Hungarian, Spanish and French', () => {
      for (const t of ["We decided to use Postgres.", "Let's go with option B.", 'Wir haben entschieden, Postgres zu nehmen.',
        'Úgy döntöttünk, hogy Postgrest használunk.', 'Decidimos usar Postgres.', 'Nous avons décidé d’utiliser Postgres.']) {
        assert.ok(countDecisions(t) >= 1, t);
        const withDecision = scoreImportance({ messages: [base, { role: 'user', text: t }], userShare: 0.5 });
        const without = scoreImportance({ messages: [base, { role: 'user', text: 'Some more words here.' }], userShare: 0.5 });
        assert.ok(withDecision > without, t);
      }
      assert.equal(countDecisions('We will decide later.'), 0);
    });
    it('is in [0, 1], is 1 when pinned and rises when closed', () => {
      const open = scoreImportance({ messages: [base], userShare: 0.5 });
      assert.ok(open >= 0 && open <= 1);
      assert.ok(scoreImportance({ messages: [base], userShare: 0.5, closed: true }) > open);
      assert.equal(scoreImportance({ messages: [], userShare: 0, pinned: true }), 1);
      const max = scoreImportance({ messages: [{ role: 'user', text: 'We decided. Decidimos. '.repeat(1000) }], userShare: 5, closed: true });
      assert.ok(max <= 1);
    });
  });

  describe('labels of derived items', () => {
    it('keeps a project only when every source carries it', () => {
      assert.equal(deriveLabel([{ project: 'p1', trust: 'owner', secret: false }, { project: 'p1', trust: 'owner', secret: false }]).project, 'p1');
      assert.equal(deriveLabel([{ project: 'p1', trust: 'owner', secret: false }, { project: null, trust: 'owner', secret: false }]).project, null);
      assert.equal(deriveLabel([{ project: 'p1', trust: 'owner', secret: false }, { project: 'p2', trust: 'owner', secret: false }]).project, null);
    });
    it('takes the least trusted source, never above derived, and propagates secrets', () => {
      assert.deepEqual(deriveLabel([{ project: null, trust: 'owner', secret: false }]), { project: null, trust: 'derived', secret: false });
      assert.equal(deriveLabel([{ project: null, trust: 'owner', secret: false }, { project: null, trust: 'peer', secret: false }]).trust, 'peer');
      assert.equal(deriveLabel([{ project: null, trust: 'ingested', secret: false }, { project: null, trust: 'quarantined', secret: true }]).trust, 'quarantined');
      assert.equal(deriveLabel([{ project: null, trust: 'owner', secret: false }, { project: null, trust: 'owner', secret: true }]).secret, true);
      assert.deepEqual(deriveLabel([]), { project: null, trust: 'derived', secret: false });
    });
  });
});

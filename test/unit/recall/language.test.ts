import { strict as assert } from 'node:assert';
import { analyze, detectLanguage, fold, isStopWord, stem, STOP_WORDS, tokenize } from '../../../src/engine/recall/language';

describe('language: tokenizer', () => {
  it('keeps a camelCase identifier whole and also splits it into parts', () => {
    assert.deepEqual(tokenize('httpx ReadTimeout'), ['httpx', 'readtimeout', 'read', 'timeout']);
  });

  it('splits snake_case identifiers and keeps the whole token', () => {
    assert.deepEqual(tokenize('set read_timeout now'), ['set', 'read_timeout', 'read', 'timeout', 'now']);
  });

  it('splits letters from digits but keeps the token (utf8Decode, HTTP2)', () => {
    assert.deepEqual(tokenize('HTTP2'), ['http2', 'http', '2']);
    assert.deepEqual(tokenize('parseJSONResponse'), ['parsejsonresponse', 'parse', 'json', 'response']);
  });

  it('folds diacritics and lower-cases for matching', () => {
    assert.deepEqual(tokenize('Größe Hőség ÉTÉ niño'), ['grosse', 'hoseg', 'ete', 'nino']);
    assert.equal(fold('Œuvre'), 'oeuvre');
  });

  it('treats punctuation and apostrophes as separators and handles empty text', () => {
    assert.deepEqual(tokenize("l'été, c'est: ok!"), ['l', 'ete', 'c', 'est', 'ok']);
    assert.deepEqual(tokenize(''), []);
    assert.deepEqual(tokenize('  ---  '), []);
  });

  it('tokenizes non-Latin scripts as letters', () => {
    assert.deepEqual(tokenize('Привет мир'), ['привет', 'мир']);
  });
});

describe('language: stop words', () => {
  it('has a function-word list for each of the five languages', () => {
    assert.ok(STOP_WORDS.en.has('the') && STOP_WORDS.en.has('which'));
    assert.ok(STOP_WORDS.de.has('und') && STOP_WORDS.de.has('nicht') && STOP_WORDS.de.has('fur'));
    assert.ok(STOP_WORDS.hu.has('hogy') && STOP_WORDS.hu.has('egy'));
    assert.ok(STOP_WORDS.es.has('que') && STOP_WORDS.es.has('para'));
    assert.ok(STOP_WORDS.fr.has('les') && STOP_WORDS.fr.has('dans'));
  });

  it('drops only the query language’s function words ("die" is a word in English)', () => {
    assert.equal(isStopWord('die', 'de'), true);
    assert.equal(isStopWord('die', 'en'), false);
    assert.deepEqual(analyze('the server will die', 'en'), ['server', 'die']);
  });

  it('keeps function words when a query has nothing else', () => {
    assert.deepEqual(analyze('the who', 'en'), ['the', 'who']);
  });
});

describe('language: stemmers', () => {
  const same = (lang: 'en' | 'de' | 'hu' | 'es' | 'fr', a: string, b: string) =>
    assert.equal(stem(fold(a), lang), stem(fold(b), lang), `${lang}: ${a} ~ ${b}`);

  it('maps English inflections to one stem', () => {
    same('en', 'timeouts', 'timeout');
    same('en', 'running', 'run');
    same('en', 'stories', 'story');
    same('en', 'cached', 'caches');
    same('en', 'configured', 'configure');
  });

  it('maps German inflections to one stem', () => {
    same('de', 'Häuser', 'Hauser');
    same('de', 'Einstellungen', 'Einstellung');
    same('de', 'Fehlern', 'Fehler');
  });

  it('strips Hungarian case and plural suffixes', () => {
    same('hu', 'házakban', 'házak');
    same('hu', 'szerverről', 'szerver');
    same('hu', 'fájlokat', 'fájl');
  });

  it('strips Spanish and French suffixes', () => {
    same('es', 'configuración', 'configuraciones');
    same('es', 'servidores', 'servidor');
    same('fr', 'paramètres', 'paramètre');
    same('fr', 'rapidement', 'rapide');
  });

  it('leaves identifiers with digits or underscores unstemmed', () => {
    assert.equal(stem('read_timeouts', 'en'), 'read_timeouts');
    assert.equal(stem('utf8s', 'en'), 'utf8s');
  });

  it('stems the same way at index time and at query time', () => {
    assert.deepEqual(analyze('Timeouts when reading', 'en'), analyze('timeout when read', 'en'));
  });
});

describe('language: detection', () => {
  const cases: [string, string][] = [
    ['how do I fix the timeout?', 'en'],
    ['what was the name of my dentist', 'en'],
    ['wie war das mit dem Server?', 'de'],
    ['Warum ist die Größe falsch', 'de'],
    ['hogyan lehet ezt megoldani', 'hu'],
    ['miért nem működik a szerver', 'hu'],
    ['¿cómo configuro el servidor?', 'es'],
    ['qué dijo mi jefe sobre el proyecto', 'es'],
    ['comment est-ce que je configure le serveur', 'fr'],
    ['pourquoi les tests sont lents', 'fr'],
  ];
  for (const [text, lang] of cases) {
    it(`detects ${lang} in "${text}"`, () => assert.equal(detectLanguage(text), lang));
  }

  it('returns null when there is no evidence (identifiers, numbers, empty)', () => {
    assert.equal(detectLanguage('httpx ReadTimeout'), null);
    assert.equal(detectLanguage('42'), null);
    assert.equal(detectLanguage(''), null);
  });
});

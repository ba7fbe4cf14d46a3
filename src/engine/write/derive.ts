// Deterministic derivation after a flush (SPEC R-WRITE-4, R-MEM-6): facts, summary, entities, topics,
// importance and the labels a derived item inherits — no model call, pure functions of their inputs.
// Invariants: a summary is at most `maxChars` code points; a fact's identity is its normalised subject;
// a derived item's project is set only when every source carries it, and its trust never exceeds 'derived'.

import { BLOCK_CLOSE, BLOCK_OPEN } from '../recall/recallBlock';
import { leastTrusted, Trust } from '../types';

// ---------------------------------------------------------------------------------------------
// Shared text helpers

const STOPWORDS = new Set(
  (
    // en
    'the a an and or but if then so of to in on at by for with from as is are was were be been being it its this that these those ' +
    'i you he she we they me him her us them my your our their what which who whom when where why how not no yes do does did done ' +
    'have has had will would can could should may might must shall just also very too than there here about into over after before ' +
    'again all any each few more most other some such only own same up down out off once ok okay let lets let\'s get got im i\'m ' +
    "it's that's don't can't won't we're you're they're i've we've hey hi hello thanks thank really well yeah oh " +
    // de
    'der die das den dem des ein eine einen einem einer und oder aber wenn dann ist sind war waren sein nicht kein keine ich du er sie es ' +
    'wir ihr mich dich sich mit von zu im in auf an für fur bei aus nach über uber unter auch noch schon nur so wie was wer wo warum ' +
    'hat haben hatte wird werden kann können konnen muss müssen mussen soll sollen dass daß doch mal ja nein bitte danke ' +
    // hu
    'a az egy és es de hogy nem van volt lesz is meg már mar még meg csak mint ami aki ez azt ezt itt ott ha akkor vagy vagyok ' +
    'én en te ő mi ti ők ok nekem neked kell lehet igen köszi koszi szia ' +
    // es
    'el la los las un una unos unas y o pero si no es son fue era ser estar está esta están de del al en con por para que como ' +
    'yo tu él ella nosotros ellos mi su sus lo le les se ya muy más mas también tambien hola gracias ' +
    // fr
    'le la les un une des et ou mais si ne pas est sont était etait être etre de du au aux en dans sur avec pour par que qui quoi ' +
    'je tu il elle nous vous ils elles mon ton son ma ta sa mes tes ses ce cette ces on y plus aussi très tres bonjour merci'
  ).split(/\s+/),
);

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

function cpLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** Cut to at most `max` code points, at a word boundary when one is near, with an ellipsis. */
function clip(s: string, max: number): string {
  if (max <= 0) return '';
  const cps = [...s];
  if (cps.length <= max) return s;
  if (max === 1) return '…';
  let cut = cps.slice(0, max - 1).join('');
  const sp = cut.lastIndexOf(' ');
  if (sp > cut.length * 0.6) cut = cut.slice(0, sp);
  return cut.replace(/[\s,;:.-]+$/u, '') + '…';
}

function words(s: string): string[] {
  return (s.toLowerCase().match(/\p{L}[\p{L}\p{N}'’-]*/gu) ?? []).map((w) => w.replace(/’/g, "'"));
}

function contentWords(s: string): string[] {
  return words(s).filter((w) => w.length >= 3 && !STOPWORDS.has(w));
}

function splitSentences(text: string): string[] {
  return oneLine(text)
    .split(/(?<=[.!?…])\s+(?=[\p{Lu}\p{N}"'(¿¡])/u)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** Text with fenced code blocks removed (they are not prose). */
function withoutCode(text: string): string {
  return text.replace(/^\s{0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^\s{0,3}\1[^\n]*$|(?![\s\S]))/gmu, ' ');
}

// ---------------------------------------------------------------------------------------------
// Facts

export interface ExtractedFact {
  /** The subject as written (trimmed, markup removed). */
  subject: string;
  value: string;
  /** Identity of the subject: factKey(subject). */
  key: string;
}

// Labels that open a line but are not a subject with a value.
const NON_SUBJECTS = new Set([
  'note', 'notes', 'nb', 'example', 'examples', 'e.g', 'eg', 'warning', 'tip', 'hint', 'info', 'question', 'answer', 'q', 'a',
  'user', 'assistant', 'human', 'system', 'ai', 'bot', 'http', 'https', 'ftp', 'mailto', 'file', 'todo', 'fixme', 'edit', 'update',
  'here is the fix', 'here', 'summary', 'step', 'steps', 'result', 'output', 'input', 'error', 'stack', 'log', 'quote',
  'hinweis', 'beispiel', 'achtung', 'frage', 'antwort', 'megjegyzés', 'példa', 'nota', 'ejemplo', 'pregunta', 'respuesta',
  'exemple', 'remarque', 'réponse',
]);

// Discourse markers (EN/DE/HU/ES/FR): a line opening with one of these is chat prose ("Noted: …",
// "Answer number 3: …"), not a labelled fact. Matched on the key's first word and on the whole key.
const DISCOURSE_MARKERS = new Set([
  // en
  'noted', 'note', 'sure', 'ok', 'okay', 'answer', 'update', 'updated', 'so', 'well', 'also', 'btw', 'fyi', 'ps', 'yes', 'no',
  'thanks', 'right', 'great', 'done', 'tip', 'reminder', 'correction', 'edit', 'tldr', 'tl;dr', 'conclusion', 'result', 'recap',
  'anyway', 'actually', 'basically', 'honestly', 'alright', 'understood', 'got it', 'question', 'option', 'step', 'reply', 'response',
  'important', 'caveat', 'heads up', 'fwiw', 'imo', 'imho', 'then', 'now', 'first', 'second', 'finally', 'next', 'and', 'but',
  // de
  'notiert', 'notiz', 'klar', 'gut', 'also', 'übrigens', 'antwort', 'ja', 'nein', 'danke', 'stimmt', 'super', 'erledigt',
  'zusammenfassung', 'fazit', 'ergebnis', 'frage', 'tipp', 'anmerkung', 'nachtrag', 'korrektur', 'verstanden', 'genau', 'nun',
  'jedenfalls', 'außerdem', 'wichtig', 'schritt', 'option', 'dann', 'und', 'aber', 'erinnerung', 'gesagt',
  // hu
  'megjegyzés', 'rendben', 'oké', 'persze', 'válasz', 'frissítés', 'szóval', 'nos', 'továbbá', 'igen', 'nem', 'köszi', 'köszönöm',
  'kérdés', 'összefoglalva', 'tehát', 'amúgy', 'egyébként', 'figyelem', 'tipp', 'eredmény', 'értem', 'lépés', 'fontos', 'és', 'de',
  'emlékeztető', 'javítás',
  // es
  'anotado', 'nota', 'vale', 'claro', 'bueno', 'respuesta', 'actualización', 'entonces', 'pues', 'también', 'además',
  'por cierto', 'sí', 'gracias', 'pregunta', 'resumen', 'ojo', 'consejo', 'resultado', 'entendido', 'paso', 'opción', 'importante',
  'recordatorio', 'corrección', 'y', 'pero',
  // fr
  'noté', "d'accord", 'bien sûr', 'réponse', 'mise à jour', 'donc', 'alors', 'bon', 'aussi', "d'ailleurs", 'au fait', 'oui',
  'non', 'merci', 'résumé', 'attention', 'astuce', 'résultat', 'compris', 'bref', 'entendu', 'étape', 'rappel', 'et', 'mais',
]);
// Pronouns and auxiliaries that make a "key" a clause ("I think", "we decided", "if you ask me").
const CLAUSE_WORDS = new Set([
  'i', 'we', 'you', "i'm", "we're", "you're", 'is', 'are', 'was', 'will', 'would', 'should', 'think', 'if',
  'ich', 'wir', 'du', 'ist', 'sind', 'wird', 'wenn', 'én', 'yo', 'nosotros', 'tú', 'es', 'si', 'je', 'nous',
  'vous', 'tu', 'est', 'sont',
]);

/** A fact's value: one sentence of at most 120 code points (longer is prose, not a labelled fact). */
const FACT_VALUE_MAX = 120;

function isLabelKey(key: string): boolean {
  if (DISCOURSE_MARKERS.has(key)) return false;
  const ws = key.split(' ');
  // "Answer number 3", "Update 2", "So basically": the first word decides.
  if (DISCOURSE_MARKERS.has(ws[0]) || DISCOURSE_MARKERS.has(ws.slice(0, 2).join(' '))) return false;
  return !ws.some((w) => CLAUSE_WORDS.has(w));
}

/** Identity of a fact's subject: case, accents-insensitive spacing, markup and separators normalised. */
export function factKey(subject: string): string {
  return subject
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[*`~"“”„'’]+/g, '')
    .replace(/[\s\-–—_.]+/g, ' ')
    .trim();
}

function normValue(v: string): string {
  return v.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').replace(/[\s.;,!]+$/u, '').trim();
}

/**
 * Facts from `key: value` lines (each sentence of a line is tried on its own). The key is a short label —
 * not a discourse marker ("Noted:", "Answer number 3:", "Übrigens:", "Szóval:", "Bueno:", "Donc :") nor a clause —
 * and the value is one sentence of at most 120 code points. Skips fenced code, headings, quotes, URLs, times (10:30)
 * and code-like keys.
 */
export function extractFacts(text: string): ExtractedFact[] {
  const out: ExtractedFact[] = [];
  const seen = new Set<string>();
  let fence: string | null = null;
  let quoted = false; // inside a recall block's <memory-context> span: recalled text, never derived again
  for (const raw of text.split('\n')) {
    if (!fence && (quoted || raw.includes(BLOCK_OPEN))) {
      const open = raw.lastIndexOf(BLOCK_OPEN), close = raw.lastIndexOf(BLOCK_CLOSE);
      if (open >= 0 || close >= 0) quoted = open > close;
      continue;
    }
    const fm = /^\s{0,3}(`{3,}|~{3,})/.exec(raw);
    if (fence) { if (fm && fm[1][0] === fence[0] && fm[1].length >= fence.length) fence = null; continue; }
    if (fm) { fence = fm[1]; continue; }
    if (/^\s{4,}|^\t/.test(raw)) continue; // indented code
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith('>') || line.startsWith('//') || line.startsWith('|')) continue;
    // A line of several "key: value." sentences holds several facts; a prose sentence after a value ends it.
    for (const seg of splitSentences(line)) {
      const fact = factFromSegment(seg);
      if (!fact) continue;
      const dedupe = `${fact.key}\u0000${normValue(fact.value)}`;
      if (seen.has(dedupe)) continue;
      seen.add(dedupe);
      out.push(fact);
    }
  }
  return out;
}

function factFromSegment(line: string): ExtractedFact | null {
  {
    const m = /^(?:[-*•+]\s+|\d+[.)]\s+)?(\*\*|__)?([\p{L}][\p{L}\p{N} _./'’()-]{0,58}?)\1?\s*:\s+(\S.*)$/u.exec(line);
    if (!m) return null;
    const subject = m[2].replace(/[*_]+$/u, '').trim();
    let value = m[3].trim().replace(/^(\*\*|__)\s*/, '');
    if (/\bhttps?$|\bftp$|\bmailto$/i.test(subject)) return null;
    if (/[(){}\[\]=;<>$`]/.test(subject) && !/^[\p{L}\s]+\([\p{L}\s]+\)$/u.test(subject)) return null; // code, not a label
    if (subject.split(/\s+/).length > 5) return null; // a sentence ending in a colon, not a key
    if (/\d$/.test(subject) && /^\d/.test(value)) return null; // a time like "at 10: 30"
    const key = factKey(subject);
    if (!key || NON_SUBJECTS.has(key) || !isLabelKey(key)) return null;
    value = value.replace(/\s+/g, ' ').replace(/[.;]$/u, '').trim();
    if (!value || /^[-–—:]+$/.test(value)) return null;
    if (cpLength(value) > FACT_VALUE_MAX) return null; // prose, not a value
    return { subject, value, key };
  }
}

export interface StoredFact {
  id: string;
  subject: string;
  value: string;
  /** ISO time or epoch ms; the newest valid fact for a subject is the current one. */
  validFrom: string | number;
}

export type FactResolution = 'same' | 'supersedes' | 'new';

/** The current (newest) stored fact with the same subject identity, if any. */
export function findCurrentFact<T extends StoredFact>(existing: readonly T[], subject: string): T | undefined {
  const key = factKey(subject);
  let best: T | undefined;
  for (const f of existing) {
    if (factKey(f.subject) !== key) continue;
    if (!best || toMillis(f.validFrom) >= toMillis(best.validFrom)) best = f;
  }
  return best;
}

function toMillis(t: string | number): number {
  return typeof t === 'number' ? t : Date.parse(t) || 0;
}

/**
 * Same subject and value → 'same' (link to the existing fact); same subject, new value → 'supersedes'
 * (the caller sets invalidated_at on findCurrentFact(...)); otherwise 'new'. `existing` should hold the
 * still-valid facts of the scope.
 */
export function resolveFact(existing: readonly StoredFact[], incoming: { subject: string; value: string }): FactResolution {
  const cur = findCurrentFact(existing, incoming.subject);
  if (!cur) return 'new';
  return normValue(cur.value) === normValue(incoming.value) ? 'same' : 'supersedes';
}

// ---------------------------------------------------------------------------------------------
// Summary

export interface SummaryMessage {
  role: string;
  text: string;
}

/**
 * At most `maxChars` code points: the first message, the most characteristic sentences in between
 * (TF-IDF within the conversation, one message = one document) and the last message, in order.
 */
export function summarize(messages: readonly SummaryMessage[], maxChars = 280): string {
  const msgs = messages.map((m) => ({ role: m.role, text: oneLine(withoutCode(m.text ?? '')) })).filter((m) => m.text);
  if (msgs.length === 0 || maxChars <= 0) return '';
  const SEP = ' … ';
  if (msgs.length === 1) return clip(msgs[0].text, maxChars);

  // Budget (code points): first ≈ 40 %, last ≈ 30 %, the rest for the middle; unused budget flows on.
  const first = clip(firstSentences(msgs[0].text, Math.floor(maxChars * 0.4)), Math.floor(maxChars * 0.4));
  const lastMsg = msgs[msgs.length - 1].text;
  const lastBudget = Math.floor(maxChars * 0.3);
  let remaining = maxChars - cpLength(first) - cpLength(SEP) - Math.min(cpLength(lastMsg), lastBudget) - cpLength(SEP);

  const middle: { idx: number; text: string; score: number }[] = [];
  if (msgs.length > 2 && remaining > 20) {
    const msgWords = msgs.map((m) => contentWords(m.text)); // once per message: df and tf share it
    const df = new Map<string, number>();
    for (const ws of msgWords) for (const w of new Set(ws)) df.set(w, (df.get(w) ?? 0) + 1);
    const tf = new Map<string, number>();
    for (const ws of msgWords) for (const w of ws) tf.set(w, (tf.get(w) ?? 0) + 1);
    const n = msgs.length;
    let idx = 0;
    for (let i = 1; i < msgs.length - 1; i++) {
      for (const s of splitSentences(msgs[i].text)) {
        const ws = new Set(contentWords(s));
        if (ws.size < 2) { idx++; continue; }
        let score = 0;
        // A term repeated across the conversation but not in every message is what it is about.
        for (const w of ws) score += Math.log(1 + (tf.get(w) ?? 0)) * Math.log(1 + n / (df.get(w) ?? 1));
        middle.push({ idx: idx++, text: s, score: score / Math.sqrt(ws.size + 2) });
      }
    }
    middle.sort((a, b) => b.score - a.score || a.idx - b.idx);
  }
  const picked: { idx: number; text: string }[] = [];
  for (const c of middle) {
    const len = cpLength(c.text) + cpLength(SEP);
    if (len <= remaining) { picked.push(c); remaining -= len; }
    if (remaining < 25) break;
  }
  picked.sort((a, b) => a.idx - b.idx);
  const head = [first, ...picked.map((p) => p.text)].join(SEP);
  const lastRoom = maxChars - cpLength(head) - cpLength(SEP);
  const last = lastRoom > 10 ? clip(lastMsg, lastRoom) : '';
  return clip(last ? head + SEP + last : head, maxChars);
}

function firstSentences(text: string, budget: number): string {
  const ss = splitSentences(text);
  let out = '';
  for (const s of ss) {
    const next = out ? `${out} ${s}` : s;
    if (out && cpLength(next) > budget) break;
    out = next;
  }
  return out || text;
}

// ---------------------------------------------------------------------------------------------
// Entities

export type EntityType = 'date' | 'mention' | 'ticket' | 'identifier' | 'term' | 'name';

export interface Entity {
  type: EntityType;
  /** As written. */
  value: string;
  /** Identity: dates as YYYY-MM-DD (or --MM-DD without a year), others lower-cased/trimmed. */
  norm: string;
}

// Month names, folded (lower case, no accents), EN/DE/HU/ES/FR, with common abbreviations.
const MONTHS: Record<string, number> = {};
(
  [
    ['january jan januar janner januar januarja janu enero ene janvier janv', 1],
    ['february feb februar februarja febr febrero fevrier fevr', 2],
    ['march mar marz marcius marciusa marc marzo mars', 3],
    ['april apr aprilis aprilisa abril avril avr', 4],
    ['may mai majus majusa mayo', 5],
    ['june jun juni junius juniusa junio juin', 6],
    ['july jul juli julius juliusa julio juillet juil', 7],
    ['august aug augusztus augusztusa aug agosto aout', 8],
    ['september sep sept szeptember szeptembere szept septiembre setiembre septembre', 9],
    ['october oct oktober oktobere okt octubre octobre', 10],
    ['november nov novemberben noviembre novembre', 11],
    ['december dec dezember decemberben dez diciembre decembre', 12],
  ] as const
).forEach(([names, n]) => { for (const w of names.split(' ')) MONTHS[w] = n; });

function foldWord(w: string): string {
  return w.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase().replace(/\.$/, '');
}

const MONTH_ALT = '([A-Za-zÀ-ÿőűŐŰ]{3,12}\\.?)';
const pad = (n: number) => String(n).padStart(2, '0');

function dateNorm(y: number | null, m: number, d: number): string | null {
  if (m < 1 || m > 12 || d < 1 || d > 31) return null;
  if (y !== null && y < 100) y += 2000;
  if (y !== null && (y < 1900 || y > 2200)) return null;
  return y !== null ? `${y}-${pad(m)}-${pad(d)}` : `--${pad(m)}-${pad(d)}`;
}

interface DateRule { re: RegExp; norm: (m: RegExpExecArray) => string | null }

const DATE_RULES: DateRule[] = [
  // ISO 8601: 2024-05-14, 2024-05-14T10:30:00Z
  { re: /\b(\d{4})-(\d{2})-(\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g, norm: (m) => dateNorm(+m[1], +m[2], +m[3]) },
  // Hungarian: 2024. 05. 14. / 2024.05.14 / 2024. május 14.
  { re: /\b(\d{4})\.\s?(\d{1,2})\.\s?(\d{1,2})\.?(?!\d)/g, norm: (m) => dateNorm(+m[1], +m[2], +m[3]) },
  { re: new RegExp(`\\b(\\d{4})\\.\\s?${MONTH_ALT}\\s(\\d{1,2})\\.?(?:-[a-zá-ű]+)?(?!\\d)`, 'gu'), norm: (m) => monthDate(+m[1], m[2], +m[3]) },
  // German and others: 14.05.2024 / 14.5.24 / 14.05.
  { re: /\b(\d{1,2})\.(\d{1,2})\.(\d{4}|\d{2})?(?![\d.])/g, norm: (m) => dateNorm(m[3] ? +m[3] : null, +m[2], +m[1]) },
  // Slashes: day first unless that cannot be (EU default; 05/14/2024 is read as US).
  {
    re: /\b(\d{1,2})\/(\d{1,2})\/(\d{4}|\d{2})\b/g,
    norm: (m) => (+m[1] <= 12 && +m[2] > 12 ? dateNorm(+m[3], +m[1], +m[2]) : dateNorm(+m[3], +m[2], +m[1])),
  },
  // 8 May 2023, 8 May, 2023, 14. Mai 2024, 14 de mayo de 2024, le 14 mai 2024, 8th of May
  {
    re: new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th|\\.|er)?\\s(?:of\\s|de\\s)?${MONTH_ALT}(?:,?\\s(?:de\\s|del\\s)?(\\d{4}))?\\b`, 'gu'),
    norm: (m) => monthDate(m[3] ? +m[3] : null, m[2], +m[1]),
  },
  // May 8, 2023 / May 8th
  {
    re: new RegExp(`\\b${MONTH_ALT}\\s(\\d{1,2})(?:st|nd|rd|th)?(?:,?\\s(\\d{4}))?\\b`, 'gu'),
    norm: (m) => monthDate(m[3] ? +m[3] : null, m[1], +m[2]),
  },
];

function monthDate(y: number | null, monthWord: string, d: number): string | null {
  const m = MONTHS[foldWord(monthWord)];
  return m ? dateNorm(y, m, d) : null;
}

const NAME_CONNECTORS = new Set(['van', 'von', 'der', 'de', 'del', 'la', 'le', 'da', 'di', 'du', 'dos', 'bin', 'al']);
const NON_NAME_WORDS = new Set([
  ...[...STOPWORDS],
  'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday', 'montag', 'dienstag', 'mittwoch', 'donnerstag',
  'freitag', 'samstag', 'sonntag', 'hétfő', 'kedd', 'szerda', 'csütörtök', 'péntek', 'szombat', 'vasárnap', 'lunes', 'martes',
  'miércoles', 'jueves', 'viernes', 'sábado', 'domingo', 'lundi', 'mardi', 'mercredi', 'jeudi', 'vendredi', 'samedi', 'dimanche',
  'please', 'bitte', 'also', 'yes', 'no', 'ok', 'okay', 'thanks', 'sure', 'great', 'wow', 'cool', 'nice', 'sorry', 'maybe',
]);

function looksGerman(text: string): boolean {
  const m = text.match(/\b(der|die|das|und|ist|nicht|ich|wir|mit|für|auf)\b/g);
  return (m?.length ?? 0) >= 3;
}

/**
 * Dates (EN/DE/HU/ES/FR formats incl. ISO), @mentions, #123 and ABC-123 tickets, code identifiers
 * (camelCase, PascalCase, snake_case, SCREAMING_CASE, dotted.paths, call()), `backticked` terms and
 * capitalised names (multi-word anywhere; single words only mid-sentence and not in German text, where
 * every noun is capitalised). Unique by (type, norm), in order of appearance.
 */
export function extractEntities(text: string): Entity[] {
  const out: Entity[] = [];
  const seen = new Set<string>();
  const add = (type: EntityType, value: string, norm: string) => {
    const k = `${type}\u0000${norm}`;
    if (!norm || seen.has(k)) return;
    seen.add(k);
    out.push({ type, value, norm });
  };

  // Backticked terms first; then blank them (and URLs, emails) so nothing inside is read twice.
  let rest = text.replace(/`([^`\n]{1,80})`/g, (_all, t: string) => {
    add('term', t.trim(), t.trim().toLowerCase());
    return ' '.repeat(t.length + 2);
  });
  rest = withoutCode(rest);
  rest = rest.replace(/\b(?:https?|ftp):\/\/\S+|\bwww\.\S+/g, (m) => ' '.repeat(m.length));

  for (const r of DATE_RULES) {
    r.re.lastIndex = 0;
    for (let m = r.re.exec(rest); m; m = r.re.exec(rest)) {
      const n = r.norm(m);
      if (n) {
        add('date', m[0].trim(), n);
        rest = rest.slice(0, m.index) + ' '.repeat(m[0].length) + rest.slice(m.index + m[0].length);
      }
    }
  }

  for (const m of rest.matchAll(/(?<![\w.@])@([A-Za-z0-9_](?:[\w.-]*\w)?)/g)) add('mention', m[0], m[0].toLowerCase());
  rest = rest.replace(/\b[\w.+-]+@[\w-]+\.[\w.-]+\b/g, (m) => ' '.repeat(m.length));

  for (const m of rest.matchAll(/(?<![\w&#])#(\d{1,7})\b/g)) add('ticket', m[0], `#${m[1]}`);
  for (const m of rest.matchAll(/\b([A-Z][A-Z0-9]{1,9})-(\d{1,7})\b(?!-\d)/g)) {
    if (/^(UTF|ISO|SHA|MD|RFC|ES|TLS|SSL|HTTP|IPV|COVID|CVE|GPT|UTC|GMT)$/.test(m[1])) continue;
    add('ticket', m[0], m[0].toUpperCase());
  }

  const IDENT = [
    /\b[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+\b/g, // camelCase
    /\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+\b/g, // PascalCase (two humps or more)
    /\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g, // snake_case
    /\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g, // SCREAMING_SNAKE
    /(?<![\w.])[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)+(?:\(\))?(?![\w])/g, // dotted.path / file.ext
    /\b[A-Za-z_]\w*\(\)/g, // call()
  ];
  for (const re of IDENT) {
    for (const m of rest.matchAll(re)) {
      const v = m[0].replace(/\.$/, '');
      if (v.includes('.')) {
        const segs = v.replace(/\(\)$/, '').split('.');
        if (segs.some((s) => s.length === 0) || !segs.some((s) => s.length >= 2) || v.length < 4) continue;
        if (/^(?:e\.g|i\.e|z\.b|u\.a|d\.h|etc|vs|bzw|ca|approx|p\.s)$/i.test(v)) continue;
      }
      add('identifier', v, v.toLowerCase());
    }
  }

  // Names: runs of capitalised words (optionally joined by de/van/von …).
  const german = looksGerman(text);
  for (const sentence of rest.split(/(?<=[.!?…:;\n])\s+|\n+/u)) {
    const toks = sentence.split(/\s+/).filter(Boolean);
    let run: string[] = [];
    let runStart = -1;
    const flush = (end: number) => {
      while (run.length && NAME_CONNECTORS.has(run[run.length - 1].toLowerCase())) run.pop();
      // A sentence-initial stop word ("The", "We", "Der") is not part of a name.
      if (runStart === 0 && run.length && NON_NAME_WORDS.has(run[0].toLowerCase())) { run.shift(); runStart = 1; }
      if (run.length >= 2 || (run.length === 1 && runStart > 0 && !german && !NON_NAME_WORDS.has(run[0].toLowerCase()))) {
        const v = run.join(' ');
        if (!/^[\p{Lu}\d]+$/u.test(v.replace(/\s/g, '')) || run.length >= 2) add('name', v, v.toLowerCase());
      }
      run = [];
      runStart = -1;
      void end;
    };
    toks.forEach((raw, i) => {
      const w = raw.replace(/^[("'“„«¿¡]+|[)"'”»,.;:!?…]+$/gu, '');
      const trailingBreak = /[,;:!?…)]$|\.$/.test(raw);
      const isCap = /^\p{Lu}[\p{Ll}'’-]+$/u.test(w) && !/[_.]/.test(w);
      if (isCap || (run.length > 0 && NAME_CONNECTORS.has(w) && !trailingBreak)) {
        if (runStart < 0) runStart = i;
        run.push(w);
        if (trailingBreak) flush(i);
      } else if (run.length) flush(i);
    });
    if (run.length) flush(toks.length);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Topics

/**
 * Up to `max` topic words: content words weighted by frequency (≥ 2 occurrences first), then by length as
 * a cheap proxy for specificity; ties keep the first occurrence. Lower case.
 */
export function extractTopics(text: string, max = 5): string[] {
  const prose = withoutCode(text).replace(/\b(?:https?|ftp):\/\/\S+/g, ' ');
  const counts = new Map<string, { n: number; first: number }>();
  contentWords(prose).forEach((w, i) => {
    if (w.length < 4 || /^\d/.test(w)) return;
    const c = counts.get(w);
    if (c) c.n++;
    else counts.set(w, { n: 1, first: i });
  });
  return [...counts.entries()]
    .sort((a, b) => b[1].n - a[1].n || Math.min(b[0].length, 12) - Math.min(a[0].length, 12) || a[1].first - b[1].first)
    .slice(0, max)
    .map(([w]) => w);
}

// ---------------------------------------------------------------------------------------------
// Importance

/** Decision phrases (folded: lower case, no accents) in English, German, Hungarian, Spanish and French. */
export const DECISION_PHRASES: Readonly<Record<'en' | 'de' | 'hu' | 'es' | 'fr', RegExp>> = {
  en: /\b(?:we(?:'ve| have)? decided|(?:i|we)(?:'ve| have)? agreed|decided to|decision(?: is)?:|let'?s go with|we(?:'ll| will) go with|we(?:'re| are) going with|final decision|we settled on|settled on|going forward we)\b/,
  de: /\b(?:wir haben (?:uns )?(?:entschieden|beschlossen|geeinigt)|wir entscheiden uns|entschieden:|entscheidung:|beschlossen:|wir nehmen|lass(?:t)? uns \w+(?: \w+)? nehmen|wir bleiben bei|wir gehen mit)\b/,
  hu: /\b(?:ugy dontottunk|ugy dontottem|dontottunk|eldontottuk|megegyeztunk|a dontes:|dontes:|maradjunk (?:a|az|ennel)|legyen (?:a|az) \w+)\b/,
  es: /\b(?:decidimos|hemos decidido|he decidido|acordamos|hemos acordado|vamos con|nos quedamos con|la decision es|decision:)\b/,
  fr: /\b(?:nous avons decide|on a decide|j'ai decide|nous avons convenu|on part sur|allons-y avec|c'est decide|la decision est|decision\s?:|nous retenons|on retient)\b/,
};

function foldText(s: string): string {
  return s.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase().replace(/[’`]/g, "'");
}

/** How many decision phrases (any of the five languages) occur in `text`. */
export function countDecisions(text: string): number {
  const f = foldText(text);
  let n = 0;
  for (const re of Object.values(DECISION_PHRASES)) {
    const g = new RegExp(re.source, 'g');
    n += f.match(g)?.length ?? 0;
  }
  return n;
}

export interface ImportanceInput {
  messages: readonly SummaryMessage[];
  /** The user's share of the conversation's characters, 0..1. */
  userShare: number;
  closed?: boolean;
  pinned?: boolean;
}

/**
 * Importance in [0, 1]. Pinned → 1. Otherwise a weighted sum: length 0.25 (log scale, saturating at
 * 8,000 chars ≈ one flush), user share 0.15, decisions 0.4 (first phrase 0.3, any more +0.1), closed 0.1,
 * plus a 0.05 floor so nothing saved scores zero.
 */
export function scoreImportance(input: ImportanceInput): number {
  if (input.pinned) return 1;
  let chars = 0;
  let decisions = 0;
  for (const m of input.messages) {
    chars += m.text?.length ?? 0;
    decisions += countDecisions(m.text ?? '');
  }
  const length = Math.min(1, Math.log10(1 + chars) / Math.log10(1 + 8000));
  const share = Number.isFinite(input.userShare) ? Math.min(1, Math.max(0, input.userShare)) : 0;
  const decision = decisions === 0 ? 0 : decisions === 1 ? 0.3 : 0.4;
  const score = 0.05 + 0.25 * length + 0.15 * share + decision + (input.closed ? 0.1 : 0);
  return Math.min(1, Math.max(0, Math.round(score * 1000) / 1000));
}

// ---------------------------------------------------------------------------------------------
// Labels of derived items (R-MEM-4, R-MEM-6, R-WRITE-4)

export interface SourceLabel {
  project: string | null | undefined;
  trust: Trust;
  secret: boolean;
}

export interface DerivedLabel {
  project: string | null;
  trust: Trust;
  secret: boolean;
}

/**
 * Labels for an item derived from `sources`: project only if every source carries the same project;
 * trust the least trusted of the sources and never above 'derived'; secret if any source is secret.
 * No sources → global, 'derived', not secret.
 */
export function deriveLabel(sources: readonly SourceLabel[]): DerivedLabel {
  let project: string | null = null;
  if (sources.length > 0) {
    const p0 = sources[0].project || null;
    project = p0 !== null && sources.every((s) => (s.project || null) === p0) ? p0 : null;
  }
  return {
    project,
    trust: leastTrusted(sources.map((s) => s.trust), 'derived'),
    secret: sources.some((s) => s.secret === true),
  };
}

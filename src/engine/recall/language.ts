// Language handling for recall (SPEC R-RECALL-2): detection of en/de/hu/es/fr from short text,
// stop-word lists, a Unicode-aware tokenizer that keeps code identifiers, and light stemmers.
// Invariant: the same analysis (fold → stop words → stem) runs at index time and at query time.

export const LANGUAGES = ['en', 'de', 'hu', 'es', 'fr'] as const;
export type Language = (typeof LANGUAGES)[number];

const ASCII = /^[\x00-\x7f]*$/;
const SPECIAL_FOLD: Record<string, string> = { 'ß': 'ss', 'æ': 'ae', 'œ': 'oe', 'ø': 'o', 'ł': 'l', 'đ': 'd', 'ı': 'i' };

/** Lower-cases and folds diacritics ("Größe" → "grosse", "hőség" → "hoseg"). */
export function fold(s: string): string {
  const lower = s.toLowerCase();
  if (ASCII.test(lower)) return lower;
  return lower.normalize('NFKD').replace(/\p{M}+/gu, '').replace(/[ßæœøłđı]/g, (c) => SPECIAL_FOLD[c] ?? c);
}

function words(s: string): ReadonlySet<string> {
  return new Set(s.split(/\s+/).filter(Boolean).map(fold));
}

/** Function words per language (folded). Kept short: only words that carry no topic. */
export const STOP_WORDS: Readonly<Record<Language, ReadonlySet<string>>> = {
  en: words(`a an the and or but if then else of to in on at by for with from into onto about as is are was were be been
    being am do does did doing have has had having i me my mine we us our you your he him his she her it its they them their
    this that these those there here what which who whom whose when where why how not no nor so too very can could will would
    shall should may might must just also than up down out off over under again further once all any both each few more most
    other some such only own same s t don now let lets i'm it's that's what's'`),
  de: words(`der die das den dem des ein eine einer eines einem einen und oder aber wenn dann sonst von zu zum zur im in an am
    auf aus bei mit nach seit vom fur für uber über unter vor hinter neben zwischen durch gegen ohne um ist sind war waren bin
    bist sein seid gewesen hat habe hast haben hatte hatten wird werden wurde wurden kann konnen können muss mussen müssen soll
    sollen will wollen ich du er sie es wir ihr mich mir dich dir ihn ihm uns euch sich mein meine dein deine sein seine ihre
    unser euer dies diese dieser dieses jener was wer wie wo wann warum welche welcher welches nicht kein keine keinen auch
    noch schon nur sehr so als dass daß ob doch ja nein hier dort da etwas man alle allem allen aller alles`),
  hu: words(`a az egy és es vagy de ha akkor hogy mint is nem sem meg még mar már csak ez az ezt azt ezek azok itt ott
    van vannak volt voltak lesz lesznek legyen én te ő mi ti ők engem téged minket titeket nekem neked neki nekünk nektek
    nekik az ami aki amely amit akit mert pedig tehát így úgy igen nincs kell lehet mit mi miért hol mikor hogyan melyik
    ki kit minden valami sok kicsit nagyon el ki be fel le rá ide oda után előtt alatt felett között által számára`),
  es: words(`el la los las un una unos unas y o u e pero si sino que de del a al en con por para sin sobre entre hacia
    desde hasta es son era eran fue fueron ser estar está están estaba soy eres somos he ha han has hay haber yo tu tú él
    ella nosotros vosotros ellos ellas me te se nos os le les lo mi mis su sus tu tus este esta estos estas ese esa esos
    esas aquel qué que quién cuál cómo dónde cuándo por qué porque no ni muy más menos ya también como cuando donde todo
    todos toda todas otro otra algo nada`),
  fr: words(`le la les l un une des du de d et ou mais si donc or ni car que qu qui quoi dont où a à au aux en dans par
    pour sur sous avec sans chez entre vers est sont était étaient être été ai as avons avez ont avait je tu il elle on
    nous vous ils elles me te se moi toi lui leur leurs mon ma mes ton ta tes son sa ses notre nos votre vos ce cet cette
    ces ça cela ceci ne pas plus moins très aussi comme quand comment pourquoi quel quelle quels quelles tout tous toute
    toutes y c n s j m t`),
};

/** Words that strongly mark a language without being stop words everywhere (detection only). */
const MARKERS: Record<Language, ReadonlySet<string>> = {
  en: words('the is are was were what how why which would should could does did with this that you have'),
  de: words('der die das und ist nicht ich ein eine wie was warum welche wir sie mit auch noch schon wird werden kann'),
  hu: words('az egy és hogy nem van volt mert vagy ami aki hogyan miért melyik kell lehet nincs igen még már csak'),
  es: words('el los las una que del por para con es son está como qué cómo por porque también pero muy'),
  fr: words('le les des une est sont pas que qui dans pour avec sur ce cette mais vous nous il elle comment pourquoi'),
};

/** Characters (before folding) that point to a language; weights are hand-tuned on short queries. */
const CHAR_HINTS: [RegExp, Partial<Record<Language, number>>][] = [
  [/[ß]/g, { de: 3 }],
  [/[äöü]/g, { de: 1, hu: 0.6 }],
  [/[őű]/g, { hu: 3 }],
  [/[áéíóú]/g, { hu: 0.5, es: 0.5, fr: 0.2 }],
  [/[ñ¿¡]/g, { es: 3 }],
  [/[èêëçàâîôûùœ]/g, { fr: 1.5 }],
  [/\b\w+(?:ung|keit|heit|lich|chen)\b/g, { de: 1 }],
  [/\b\w*(?:sz|gy|zs|ny|ly|cs)\w*\b/g, { hu: 0.4 }],
  [/\b\w+(?:ción|mente|dad)\b/g, { es: 1 }],
  [/\b\w+(?:tion|ment|eux|euse)\b/g, { fr: 0.4, en: 0.3 }],
  [/\b\w+(?:ing|ly|ed)\b/g, { en: 0.6 }],
];

/**
 * Detects the language of `text`; null when unsure (no evidence, or two languages too close).
 * Works on short queries: each stop/marker word is one point, character hints add fractions.
 */
export function detectLanguage(text: string): Language | null {
  const lower = text.toLowerCase();
  const toks = plainWords(lower);
  if (toks.length === 0) return null;
  const score: Record<Language, number> = { en: 0, de: 0, hu: 0, es: 0, fr: 0 };
  for (const raw of toks) {
    const w = fold(raw);
    for (const l of LANGUAGES) {
      if (MARKERS[l].has(w)) score[l] += 1.5;
      else if (STOP_WORDS[l].has(w) && w.length > 1) score[l] += 1;
    }
  }
  for (const [re, weights] of CHAR_HINTS) {
    const n = lower.match(re)?.length ?? 0;
    if (n === 0) continue;
    for (const [l, wgt] of Object.entries(weights) as [Language, number][]) score[l] += n * wgt;
  }
  const ranked = [...LANGUAGES].sort((a, b) => score[b] - score[a]);
  const best = ranked[0]!, second = ranked[1]!;
  // 1.0 point minimum and a 25 % margin: one shared word such as "a" or "in" decides nothing.
  if (score[best] < 1 || score[best] - score[second] < Math.max(0.5, 0.25 * score[best])) return null;
  return best;
}

function plainWords(lower: string): string[] {
  return lower.match(/[\p{L}\p{N}']+/gu) ?? [];
}

// A token: letters, digits and underscores (Unicode-aware); apostrophes split words.
const TOKEN = /[\p{L}\p{N}_]+/gu;
const CAMEL_PARTS = /\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?\p{Ll}+|\p{Lu}+|\p{N}+/gu;
const MAX_TOKEN_CHARS = 64; // longer runs are hashes or base64, not words

/**
 * Splits text into folded tokens. A structured identifier (snake_case, camelCase, letter+digit)
 * yields the whole token and its parts: "ReadTimeout" → readtimeout, read, timeout.
 */
export function tokenize(text: string, _lang?: Language | null): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(TOKEN)) {
    let tok = m[0];
    if (tok.length > MAX_TOKEN_CHARS) tok = tok.slice(0, MAX_TOKEN_CHARS);
    const trimmed = tok.replace(/^_+|_+$/g, '');
    if (!trimmed) continue;
    out.push(fold(trimmed));
    if (isStructured(trimmed)) {
      for (const piece of trimmed.split('_')) {
        if (!piece) continue;
        const parts = piece.match(CAMEL_PARTS) ?? [piece];
        if (parts.length === 1 && piece.length === trimmed.length) continue;
        for (const p of parts) out.push(fold(p));
      }
    }
  }
  return out;
}

/** True for identifiers whose parts are worth indexing on their own. */
export function isStructured(tok: string): boolean {
  return tok.includes('_') || /\p{Ll}\p{Lu}/u.test(tok) || /\p{L}\p{N}|\p{N}\p{L}/u.test(tok);
}

// ---------------------------------------------------------------- stemmers (input is folded)

const MIN_STEM = 3; // chars left after stripping; shorter stems merge unrelated words

function stripFirst(w: string, suffixes: readonly string[], min = MIN_STEM): string {
  for (const s of suffixes) if (w.length - s.length >= min && w.endsWith(s)) return w.slice(0, -s.length);
  return w;
}

function stemEn(w: string): string {
  if (w.length <= 3) return w;
  if (w.endsWith('ies') && w.length > 4) w = w.slice(0, -3) + 'y';
  else if (/(?:sses|shes|ches|xes|zes)$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  for (const suf of ['ingly', 'edly', 'ing', 'ed']) {
    if (w.endsWith(suf) && w.length - suf.length >= 3 && /[aeiouy]/.test(w.slice(0, -suf.length))) {
      w = w.slice(0, -suf.length);
      if (/([b-df-hj-np-tv-z])\1$/.test(w) && !/(?:ll|ss|zz)$/.test(w)) w = w.slice(0, -1);
      break;
    }
  }
  w = stripFirst(w, ['ational', 'ization', 'fulness', 'ousness', 'iveness', 'ation', 'ness', 'ment', 'ful', 'ly'], 4);
  if (w.endsWith('y') && w.length > 3) w = w.slice(0, -1) + 'i';
  else if (w.endsWith('e') && w.length > 4) w = w.slice(0, -1);
  return w;
}

const DE_SUFFIXES = ['ungen', 'heiten', 'keiten', 'ung', 'heit', 'keit', 'lich', 'isch', 'ern', 'em', 'en', 'er', 'es', 'e', 's', 'n'];
function stemDe(w: string): string {
  if (w.length <= 4) return w;
  return stripFirst(w, DE_SUFFIXES);
}

const HU_SUFFIXES = ['jaikat', 'eiket', 'aikat', 'oknak', 'eknek', 'akban', 'ekben', 'okban', 'kent', 'nak', 'nek', 'ban', 'ben',
  'bol', 'rol', 'tol', 'val', 'vel', 'hoz', 'hez', 'nal', 'nel', 'ert', 'kor', 'ig', 'ba', 'be', 'ra', 're', 'ok', 'ek', 'ak',
  'at', 'et', 'ot', 'on', 'en', 'ja', 'je', 'k', 't', 'n'];
function stemHu(w: string): string {
  if (w.length <= 4) return w;
  // Two passes: plural + case ("házakban" → "hazak" → "haz").
  return stripFirst(stripFirst(w, HU_SUFFIXES), ['ok', 'ek', 'ak', 'ai', 'ei', 'a', 'e']);
}

const ES_SUFFIXES = ['amientos', 'imientos', 'amiento', 'imiento', 'aciones', 'uciones', 'idades', 'mente', 'acion', 'ucion',
  'idad', 'ismos', 'ismo', 'istas', 'ista', 'ables', 'able', 'ibles', 'ible', 'ando', 'iendo', 'ados', 'idos', 'adas', 'idas',
  'ada', 'ado', 'ida', 'ido', 'ar', 'er', 'ir', 'es', 'as', 'os', 'a', 'o', 'e', 's'];
function stemEs(w: string): string {
  if (w.length <= 4) return w;
  return stripFirst(w, ES_SUFFIXES);
}

const FR_SUFFIXES = ['issements', 'issement', 'atrices', 'ateurs', 'ations', 'ements', 'atrice', 'ateur', 'ation', 'ement',
  'euses', 'euse', 'ables', 'able', 'istes', 'iste', 'ismes', 'isme', 'ances', 'ance', 'ences', 'ence', 'ments', 'ment',
  'ites', 'ite', 'eux', 'aient', 'ais', 'ait', 'ant', 'ees', 'ee', 'er', 'ez', 'es', 'e', 's', 'x'];
function stemFr(w: string): string {
  if (w.length <= 4) return w;
  return stripFirst(w, FR_SUFFIXES);
}

const STEMMERS: Record<Language, (w: string) => string> = { en: stemEn, de: stemDe, hu: stemHu, es: stemEs, fr: stemFr };

/** Stems one folded token; tokens with digits or underscores (identifiers, versions) stay whole. */
export function stem(token: string, lang: Language | null | undefined): string {
  if (/[\d_]/.test(token)) return token;
  return STEMMERS[lang ?? 'en'](token);
}

export function isStopWord(token: string, lang: Language | null | undefined): boolean {
  if (lang) return STOP_WORDS[lang].has(token);
  for (const l of LANGUAGES) if (STOP_WORDS[l].has(token)) return true;
  return false;
}

/**
 * The terms indexed or searched for: tokens without the language's function words, stemmed.
 * Without a language, function words of every supported language are dropped — unless that
 * would leave nothing (a query made only of function words still searches them).
 */
export function analyze(text: string, lang?: Language | null): string[] {
  const toks = tokenize(text);
  const kept = toks.filter((t) => !isStopWord(t, lang));
  const use = kept.length > 0 ? kept : toks;
  return use.map((t) => stem(t, lang));
}

// Learned second stage of the poison gate (SPEC R-WRITE-5, issue #14): a logistic classifier over hashed
// word, word-bigram, character n-gram (3–5, within words), cue-class, word×class, imperative×target and AI-label×class features of the gate's folded views (homoglyphs,
// spacing, l33t and base64 already undone by gateViews). Pure, synchronous and deterministic: the same
// text and weights give the same score on every machine (integer hashing, int8 weights, one float sum).
//
// Why a linear model over hashed n-grams: it runs in-process at tens of thousands of short texts per
// second, ships as a 64 KiB weights table inside the bundle (no download, no native runtime), and is
// reproducible bit for bit from `npm run train:gate` (fixed data, fixed seed, integer quantisation).
// Why cue classes: the deepset and own corpora are small; mapping "ignore/ignoriere/ignora/ignorez",
// "instructions/Anweisungen/utasítás/consignes" … onto one class each lets a family learnt in one
// language carry to the others, and class bigrams ("DISREGARD … INSTR") capture the verb × object
// structure of an instruction to the assistant without listing sentences.
// Long texts are scored per window (WINDOW_TOKENS tokens, half-overlapping) and the highest window wins,
// so a payload hidden after pages of benign filler is not diluted by them.
//
// Weights file format (little-endian), base64 in poisonGateWeights.ts:
//   0  magic "PGW1" | 4 u32 version | 8 u32 log2(buckets) | 12 f32 bias | 16 f32 scale
//   20 f32 untrusted threshold (logit) | 24 f32 reject threshold (logit) | 28 u32 hidden-layer tag (0: none; else the
//   first four bytes of the hidden layer's SHA-256 — the thresholds were calibrated with that layer, gate9)
//   32 32-byte SHA-256 of the int8 table | 64 int8[buckets]
import { createHash } from 'node:crypto';
import { HEADER_BYTES, openHeader, verifiedBodyHash } from './gateWeightsFile';
import { HiddenLayer, hiddenLogit, hiddenTagOf, INPUT_BIT, loadHiddenLayer } from './poisonGateHidden';
import { ACTS, ACTS3, ADDRESSEE, OBJECTS, OBJECTS3, R, rolesOf } from './poisonGateAsk';

export const WEIGHTS_MAGIC = 'PGW1';
/**
 * The weights file's version is its feature set: 1 = the base features, 2 = + the addressee crosses, 3 = + the policy
 * crosses (poisonGateAsk.ts).
 */
export const WEIGHTS_VERSION = 1;
export const FEATURE_SETS = [1, 2, 3] as const;
const NAMES = { file: 'weights file', kind: 'a weights file', version: 'weights version', checksum: 'weights checksum', body: 'table' };
/** Tokens per scored window; windows overlap by half (32: best deepset CV recall at the lowest LoCoMo flag rate of 16/24/32/48/64). */
export const WINDOW_TOKENS = 32;

export class GateModelError extends Error {
  constructor(message: string) {
    super(`poison gate model: ${message}`);
    this.name = 'GateModelError';
  }
}

export interface GateModel {
  bits: number;
  bias: number;
  scale: number;
  /** Logit at or above which a text is `untrusted`. */
  untrustedAt: number;
  /** Logit at or above which a text is `reject`ed. */
  rejectAt: number;
  weights: Int8Array;
  /** SHA-256 (hex) of the int8 table, as recorded in the header and verified on load. */
  sha256: string;
  /** Optional hidden layer (poisonGateHidden.ts, its own file) whose output adds to the linear logit. */
  hidden?: HiddenLayer | null;
  /** The hidden layer these weights were trained and calibrated with (hiddenTagOf), 0 for none. */
  hiddenTag?: number;
  /** Feature set the weights were trained on (FEATURE_SETS; the file's version); 1 when absent. */
  features?: number;
}

/** Parses and verifies a weights file; throws GateModelError naming what is wrong. */
export function loadGateModel(bytes: Uint8Array): GateModel {
  const dv = openHeader(bytes, WEIGHTS_MAGIC, FEATURE_SETS, NAMES, (m) => new GateModelError(m));
  const bits = dv.getUint32(8, true);
  if (bits < 8 || bits > 24) throw new GateModelError(`bucket bits ${bits} out of range 8–24`);
  const n = 2 ** bits;
  if (bytes.length !== HEADER_BYTES + n) throw new GateModelError(`weights file is ${bytes.length} bytes, expected ${HEADER_BYTES + n} for 2^${bits} buckets (truncated or padded)`);
  const bias = dv.getFloat32(12, true);
  const scale = dv.getFloat32(16, true);
  const untrustedAt = dv.getFloat32(20, true);
  const rejectAt = dv.getFloat32(24, true);
  for (const [name, v] of [['bias', bias], ['scale', scale], ['untrusted threshold', untrustedAt], ['reject threshold', rejectAt]] as const) {
    if (!Number.isFinite(v)) throw new GateModelError(`${name} is not a finite number`);
  }
  if (!(scale > 0)) throw new GateModelError('scale must be positive');
  if (!(rejectAt >= untrustedAt)) throw new GateModelError('reject threshold is below the untrusted threshold');
  const got = verifiedBodyHash(bytes, NAMES, (m) => new GateModelError(m));
  const table = bytes.subarray(HEADER_BYTES);
  const weights = new Int8Array(table.buffer.slice(table.byteOffset, table.byteOffset + table.byteLength));
  return { bits, bias, scale, untrustedAt, rejectAt, weights, sha256: got, hiddenTag: dv.getUint32(28, true), features: dv.getUint32(4, true) };
}

/**
 * The model with its hidden layer file attached (empty or null: none), checked against the tag in the weights' header:
 * weights calibrated with a hidden layer are refused without it or with another one, and the other way round.
 */
export function withHiddenLayer(model: GateModel, hidden: Uint8Array | null): GateModel {
  const h = hidden && hidden.length > 0 ? loadHiddenLayer(hidden) : null;
  const tag = model.hiddenTag ?? 0;
  if (h && hiddenTagOf(h) !== tag) throw new GateModelError(tag ? 'the hidden layer does not belong to these weights (tag mismatch)' : 'these weights take no hidden layer, one was given');
  if (!h && tag) throw new GateModelError('these weights need their hidden layer, which is missing');
  return { ...model, hidden: h };
}

/** Serialises a model (the trainer's output) to the weights file format. */
export function encodeGateModel(m: Omit<GateModel, 'sha256'>): Uint8Array {
  const n = 2 ** m.bits;
  if (m.weights.length !== n) throw new GateModelError(`table has ${m.weights.length} entries, expected ${n}`);
  const out = new Uint8Array(HEADER_BYTES + n);
  const dv = new DataView(out.buffer);
  for (let i = 0; i < 4; i++) out[i] = WEIGHTS_MAGIC.charCodeAt(i);
  const features = m.features ?? WEIGHTS_VERSION;
  if (!(FEATURE_SETS as readonly number[]).includes(features)) throw new GateModelError(`unknown feature set ${features}`);
  dv.setUint32(4, features, true);
  dv.setUint32(8, m.bits, true);
  dv.setFloat32(12, m.bias, true);
  dv.setFloat32(16, m.scale, true);
  dv.setFloat32(20, m.untrustedAt, true);
  dv.setFloat32(24, m.rejectAt, true);
  dv.setUint32(28, m.hiddenTag ?? 0, true);
  out.set(new Uint8Array(m.weights.buffer, m.weights.byteOffset, n), HEADER_BYTES);
  out.set(createHash('sha256').update(out.subarray(HEADER_BYTES)).digest(), 32);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Features

// Cue classes over folded words (lower case, no diacritics), five languages. A word maps to its class
// when it equals an entry or starts with an entry ending in '*'.
const CUES: Record<string, string> = {
  YOU: 'you your yours yourself you\'re you\'ll u du dich dir dein* ihr euch euer* sie te ti tu tus tuyo* usted ustedes eres seras vous votre vos ton ta tes toi teged neked tied veled magad',
  AI: 'ai ki ia mi llm llms gpt* chatgpt* chatbot* bot assistant* assistent* asistente* asszisztens* model modell* modelo* modele* agent agents agente* agens* copilot claude gemini sprachmodell* nyelvi nyelvmodell* language',
  INSTR: 'instruction* prompt* rule rules directive* guideline* guardrail* guidance programming polic* restriction* constraint* configuration orders anweisung* instruktion* regel* vorgabe* richtlinie* befehl* utasitas* szabaly* iranyelv* eloiras* instruccion* indicacion* pauta* regla* directriz* directrices norma* consigne* regle* restriccion* systemprompt* rendszerprompt*',
  DISREGARD: 'ignore* disregard* forget* forgot override* overwrite bypass* circumvent* discard* dismiss* disobey* abandon* ignorier* missacht* vergiss* vergesst vergessen verwirf uberschreib* umgeh* hagyd felejtsd* felejts dobd vesd ignora* olvida* olvide* omite* descarta* desobedece* anula* sobrescribe* oublie* ignorez outrepasse* contourne* annule* ecarte* neglige* skip',
  PRIOR: 'previous prior earlier above preceding former original initial old all every any vorherig* bisherig* fruher* obig* ursprunglich* alle* samtlich* korabbi* elozo* fenti eddigi eredeti osszes minden anterior* previa* previo* inicial* original* toda* todo* precedent* anterieur* initial* tous toutes',
  SYSTEM: 'system systeme sistema rendszer* developer entwickler* fejleszto* desarrollador* developpeur* admin administrator* root sudo operator betreiber* jailbreak* jailbroken dan override modus mode modo mod',
  REVEAL: 'reveal* print* show* output* dump* leak* display* recite* repeat* tell say write spell reproduce disclose* expose* zeig* gib verrat* schreib* sag* nenn* ausgeb* mutasd* ird* mondd* arul* muestra* revela* repite* dime di escribe* imprime* dis affiche* revele* repete* montre* ecris* divulgue*',
  SEND: 'send* post* upload* email* mail* forward* exfiltrat* transmit* paste* share* sync* copy* push* schick* sende* lade* leite* ubertrag* teile* kuld* toltsd* tovabbitsd* osszd masold* envia* manda* sube* reenvia* comparte* copia* envoie* transmets* transfere* televerse* partage* copie* publie*',
  SECRET: 'password* passwort* passworter passw* secret* geheim* key keys apikey* api credential* token tokens cookie* ssh env zugangsdat* schlussel* jelszo* jelszav* titk* kulcs* contrasena* clave* credencial* secreto* mot mots cle cles identifiant* motdepasse* private privat* confidential* vertraulich* bizalmas* confidencial*',
  MEMORY: 'memory memories memoir* memoria* vault notes note speicher* erinnerung* gedachtnis* emlek* memori* jegyzet* recuerdo* notas souvenir* conversation* chat history historial* historique* verlauf* transcript* context kontext* kontextus* contexto* contexte*',
  PRETEND: 'pretend* imagine* roleplay* role act acting behave* persona* character simulate* emulate* tu so spiel* stell* verhalte* tegyel* jatszd* viselkedj* kepzeld* finge* imagina* actua* interpreta* simula* fais imagine* joue* agis comporte* incarne*',
  NOW: 'now henceforth onwards forward jetzt nun sofort ab mostantol ettol most ahora adelante desormais dorenavant maintenant present',
  MUST: 'must shall should will have need required obligated muss musst sollst solltest wirst kell kotelesseg debes deberas tienes dois devras devez faut',
  NEG: 'no not never don\'t dont without nicht nie kein* ohne ne nem soha nelkul sin nunca jamais pas sans aucun* rien',
  UNRESTRICTED: 'unrestricted unfiltered uncensored unlimited limitless uneingeschrankt* ungefiltert* unzensiert* korlatlan* cenzurazatlan* ilimitad* censura libre libres illimite* debride* filter* filters restriction restrictions censorship ethics moral* safety',
  PLEASE: 'please bitte kerlek kerem porfavor favor plait',
  ANSWER: 'answer* respond* reply* antwort* beantwort* valaszol* valaszolj* responde* contesta* repond*',
  HUMAN: 'user users human nutzer* benutzer* felhasznalo* usuario* utilisateur* operator',
  OUTPUTONLY: 'only just exactly verbatim nur csak csakis solo solamente seulement uniquement',
  // Reported speech: words that frame a quoted instruction as an example, a finding or someone's words.
  REPORT: 'example* beispiel* pelda* peldaul ejemplo* exemple* finding* befund* megallapitas* hallazgo* constat* said says wrote sagte meinte schrieb mondta irta dijo decia escribio disait payload* attack* angriff* tamadas* ataque* attaque* attempt* versuch* kiserlet* intento* tentative* phishing* adathalasz* hameconnage audit* pentest* report* bericht* jelentes* informe* rapport* quoted zitat* zitiert* idez* citation* refused declined abgelehnt elutasitot* visszautasitot* rechazo* nego refuse blocked blockiert blokkolt* bloque bloquee* detected erkannt eszlelt* detecto detecte*',
  // Addressing whoever reads the text: "AI assistants summarising this", "the agent handling this ticket".
  READER: 'reading summarising summarizing summarises summarizes processing handling reviewing triaging parsing scanning liest lest lesen zusammenfasst zusammenfassen verarbeitet verarbeiten bearbeitet bearbeiten olvassa olvassak osszefoglalja osszefoglaljak feldolgozza feldolgozzak kezeli lea lean lee leen leyendo resuma resuman resumen resumiendo procese procesa procesan gestiona gestionan lit lisent lisez resument resumez traite traitent traitez',
};

const CUE_EXACT = new Map<string, string>();
const CUE_PREFIX: Array<[string, string]> = [];
for (const [cls, words] of Object.entries(CUES)) {
  for (const w of words.split(' ')) {
    if (w.endsWith('*')) CUE_PREFIX.push([w.slice(0, -1), cls]);
    else if (!CUE_EXACT.has(w)) CUE_EXACT.set(w, cls);
  }
}
CUE_PREFIX.sort((a, b) => b[0].length - a[0].length);
const cueCache = new Map<string, string | null>();

function cueOf(word: string): string | null {
  const hit = cueCache.get(word);
  if (hit !== undefined) return hit;
  let cls: string | null = CUE_EXACT.get(word) ?? null;
  if (cls === null && word.length >= 3) {
    for (const [p, c] of CUE_PREFIX) {
      if (word.length >= p.length && word.startsWith(p)) { cls = c; break; }
    }
  }
  if (cueCache.size < 50_000) cueCache.set(word, cls);
  return cls;
}

// Tokens: URLs, e-mail addresses and role/template markup become class tokens; words keep letters,
// digits and apostrophes; a few punctuation marks that structure injections are tokens of their own.
const TOKEN = /https?:\/\/\S+|\b[\w.+-]+@[\w-]+\.[\w.]+|<\|?\/?[a-z_]{2,20}\|?>|\[\/?[a-z_]{2,16}\]|<<\/?[a-z]{2,6}>>|#{2,}|[\p{L}\p{N}][\p{L}\p{N}'_]*|[:{}"<>[\]!?\n]/gu;

/** Word-level tokens of one folded view (what the features are built on). */
export function tokens(view: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(view); m; m = TOKEN.exec(view)) {
    const t = m[0];
    const c = t.charCodeAt(0);
    if (t.startsWith('http')) out.push('\u0001url');
    else if (t.includes('@') && t.length > 3 && /\w@/.test(t)) out.push('\u0001email');
    else if (c >= 48 && c <= 57 && /^\d+$/.test(t)) out.push(t.length > 3 ? '\u0001num' : t);
    else out.push(t.length > 24 ? t.slice(0, 24) : t);
  }
  return out;
}

const SENT_END = new Set(['.', '!', '?', '\n', ':']);
/**
 * Bit 30 of a feature id marks a structural feature — built from cue classes and punctuation only (a class, class
 * pairs, a sentence's opening class × a later class, "addressed to an AI" × class), not from words or characters. The
 * linear table ignores the bit (it reads the low bits); the hidden layer (poisonGateHidden.ts) may read only these.
 */
export const STRUCTURAL = INPUT_BIT;

// Integer feature hashing: a feature is (kind, string) hashed with FNV-1a seeded by its kind, or a mix of
// two such hashes (bigrams, class pairs) — no feature strings are built on the hot path.
function hashStr(seed: number, s: string, from = 0, to = s.length): number {
  let h = Math.imul(0x811c9dc5 ^ seed, 0x01000193);
  for (let i = from; i < to; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h;
}

function mix(a: number, b: number, kind: number): number {
  let h = Math.imul(a ^ Math.imul(kind, 0x9e3779b1), 0x85ebca6b) ^ b;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

// Per-window dedup table (one per bucket count; the gate is synchronous, so one table is enough).
let seen: Uint32Array | null = null;
let generation = 0;

const K_WORD = 1, K_BIGRAM = 2, K_START = 3, K_CLASS = 4, K_C3 = 5, K_C4 = 6, K_NEAR = 7, K_CO = 8, K_PUNCT = 9, K_LABEL = 10, K_BIAS = 11, K_START_CLASS = 12, K_LATER_START = 13, K_CLASS_WORD = 15, K_WORD_CLASS = 115, K_SENT = 16, K_C5 = 18, K_AI_LABEL = 19, K_ADDRESSED = 20, K_ASK_OX = 21, K_ASK_AO = 22, K_ASK_AOX = 23, K_POL_O = 24, K_POL_X = 25, K_POL_OX = 26, K_POL_AX = 27;
const BOS = hashStr(0, '\u0002bos');
const AI_CLASS = hashStr(K_CLASS, 'AI');
const classHash = new Map<string, number>();
const hashOfClass = (c: string) => {
  let h = classHash.get(c);
  if (h === undefined) { h = hashStr(K_CLASS, c); classHash.set(c, h); }
  return h;
};

/**
 * The hashed feature ids of one window of tokens, binary: a bucket counts once per window (deduplicated
 * with a generation-stamped table instead of a Set). Each id keeps the bucket in its low bits and the
 * sign of signed hashing in bit 31 (see bucketSign).
 */
function windowFeatures(toks: string[], from: number, to: number, mask: number, out: number[], features = 1): void {
  const keep = mask | 0x80000000;
  if (!seen || seen.length !== mask + 1) seen = new Uint32Array(mask + 1);
  const stamp = seen;
  generation = (generation + 1) >>> 0;
  if (generation === 0) { stamp.fill(0); generation = 1; }
  const gen = generation;
  const add = (h: number, structural = 0) => {
    const b = h & mask;
    if (stamp[b] !== gen) { stamp[b] = gen; out.push((h & keep) | structural); }
  };
  let prev = BOS;
  let prevCls = 0;
  let sentKey = 0;
  let sentKeyClass = 0;
  let startOfSentence = true;
  let sentence = 0;
  const classes: Array<[number, number, string]> = [];
  // Addressee structure (gate7): an AI word before a colon in the same sentence is a label addressed to an AI ("Note
  // for the assistant processing this inbox:", "A naptárasszisztensnek:"); every class after it in the window is
  // paired with that fact, so "addressed to an AI" × SECRET/SEND/MEMORY/NOW is learnt across languages.
  let aiInSentence = false;
  let addressed = false;
  const ask = features >= 2;
  let roles = 0; // feature set 2: the addressee/object/act roles of the sentence so far (poisonGateAsk.ts)
  for (let i = from; i < to; i++) {
    const t = toks[i];
    if (t.length === 1 && SENT_END.has(t)) {
      if (t === ':' && aiInSentence) { add(mix(AI_CLASS, 0, K_AI_LABEL), STRUCTURAL); addressed = true; }
      if (t !== ':') { aiInSentence = false; if (ask) { askCrosses(roles, add, features); roles = 0; } }
      add(hashStr(K_PUNCT, t), STRUCTURAL);
      if (t !== ':' && !startOfSentence) { startOfSentence = true; sentence++; }
      else add(mix(prev, 0, K_LABEL)); // "word:" — a label or header
      prev = hashStr(K_WORD, t);
      prevCls = 0;
      continue;
    }
    const hw = hashStr(K_WORD, t);
    add(hw);
    add(mix(prev, hw, K_BIGRAM));
    const marker = t.charCodeAt(0) === 1;
    const cls = marker ? t.slice(1).toUpperCase() : cueOf(t);
    const hc = cls ? hashOfClass(cls) : 0;
    // Word × neighbouring class ("reveal" SECRET, REVEAL "password"): an object for a verb learnt in one
    // language carries to the synonyms of the others.
    if (hc && prev !== BOS) add(mix(prev, hc, K_WORD_CLASS));
    if (prevCls) add(mix(prevCls, hw, K_CLASS_WORD));
    // Imperative × target: the sentence's first word (or its class) with each class later in the sentence
    // ("Spell … the password", "Translate … your instructions").
    if (startOfSentence) { sentKey = cls ? hc : hw; sentKeyClass = cls ? STRUCTURAL : 0; }
    else if (hc) add(mix(sentKey, hc, K_SENT), sentKeyClass);
    prevCls = hc;
    if (startOfSentence) {
      // A sentence's first word (the imperative slot), and its class; a later sentence opening with a
      // command after a benign first one is the "question + injected instruction" shape.
      add(mix(hw, 0, K_START));
      if (cls) add(mix(hc, 0, K_START_CLASS), STRUCTURAL);
      if (sentence > 0) add(mix(cls ? hc : hw, 0, K_LATER_START), cls ? STRUCTURAL : 0);
    }
    startOfSentence = false;
    if (ask && !marker) roles |= rolesOf(t, cls);
    if (cls) {
      add(hc, STRUCTURAL);
      classes.push([i, hc, cls]);
      if (cls === 'AI') aiInSentence = true;
      else if (addressed) add(mix(AI_CLASS, hc, K_ADDRESSED), STRUCTURAL);
    }
    if (t.length >= 3 && !marker) charGrams(t, add);
    prev = hw;
  }
  if (ask) askCrosses(roles, add, features);
  classPairs(classes, add);
  add(hashStr(K_BIAS, ''), STRUCTURAL);
}

const roleHash = (bit: number) => hashStr(K_ASK_OX, String(bit));
const ADDR_HASH = new Map<number, number>([[R.YOU, roleHash(R.YOU)], [R.AI, roleHash(R.AI)], [R.ME, roleHash(R.ME)], [0, roleHash(0)]]);
const OBJ_HASH = OBJECTS3.map(roleHash), ACT_HASH = ACTS3.map(roleHash), MODAL_HASH = roleHash(R.MODAL);
const ON_OUTPUT = R.OUTPUT | R.APPEND | R.FORCE; // set 3's crosses need an output object or an act on it

/**
 * Feature set 2: one sentence's roles as crosses (structural) — object × act, addressee × object and addressee × object
 * × act, the addressee being the assistant ("you", an AI word; none when the sentence names neither) and, apart, the
 * writer ("my notes", "what I told you") — so "print your instructions" and "could you tell me what rules you were
 * given?" share (you × instructions × reveal). Crosses over the whole window as well were measured (gate14: same v9
 * recall, 3 more gate-benign-dev flags) and dropped; the existing class pairs (classPairs) already span the window.
 */
function askCrosses(roles: number, add: (h: number, structural?: number) => void, features: number): void {
  if (!roles) return;
  const addrs: number[] = [];
  if (roles & ADDRESSEE) { if (roles & R.YOU) addrs.push(R.YOU); if (roles & R.AI) addrs.push(R.AI); } else addrs.push(0);
  if (roles & R.ME) addrs.push(R.ME);
  for (let o = 0; o < OBJECTS.length; o++) {
    if (!(roles & OBJECTS[o])) continue;
    const ho = OBJ_HASH[o];
    for (const a of addrs) add(mix(ADDR_HASH.get(a)!, ho, K_ASK_AO), STRUCTURAL);
    for (let x = 0; x < ACTS.length; x++) {
      if (!(roles & ACTS[x])) continue;
      const ox = mix(ho, ACT_HASH[x], K_ASK_OX);
      add(ox, STRUCTURAL);
      for (const a of addrs) add(mix(ADDR_HASH.get(a)!, ox, K_ASK_AOX), STRUCTURAL);
    }
  }
  if (features >= 3 && roles & R.MODAL) policyCrosses(roles, addrs, add);
}

/**
 * Feature set 3 (gate15): a sentence with a policy marker (should, must, always, every …) as crosses — policy × object,
 * policy × act, policy × object × act, addressee × policy × act — only when the sentence also holds an output object or
 * an act on it (OUTPUT, APPEND, FORCE: "I always want my notes saved" adds nothing; measured: with any act the crosses
 * fired on 21 of 50 authors' preference rows); the output objects and their acts cross only under a policy marker
 * ("push the branch" alone adds nothing) — so "the assistant should push … --force" and
 * "replies must end with …" share features with "you must always end your replies with …" without naming the assistant.
 */
function policyCrosses(roles: number, addrs: number[], add: (h: number, structural?: number) => void): void {
  if (!(roles & ON_OUTPUT)) return;
  for (let x = 0; x < ACTS3.length; x++) {
    if (!(roles & ACTS3[x])) continue;
    const mx = mix(MODAL_HASH, ACT_HASH[x], K_POL_X);
    add(mx, STRUCTURAL);
    for (const a of addrs) add(mix(ADDR_HASH.get(a)!, mx, K_POL_AX), STRUCTURAL);
  }
  for (let o = 0; o < OBJECTS3.length; o++) {
    if (!(roles & OBJECTS3[o])) continue;
    add(mix(MODAL_HASH, OBJ_HASH[o], K_POL_O), STRUCTURAL);
    for (let x = 0; x < ACTS3.length; x++) if (roles & ACTS3[x]) add(mix(MODAL_HASH, mix(OBJ_HASH[o], ACT_HASH[x], K_ASK_OX), K_POL_OX), STRUCTURAL);
  }
}

/** Character 3-, 4- and 5-grams inside a word (with boundary marks): morphology across languages and obfuscation the folding did not undo. */
function charGrams(t: string, add: (h: number) => void): void {
  const w = '^' + t + '$';
  for (let j = 0; j + 3 <= w.length; j++) {
    add(hashStr(K_C3, w, j, j + 3));
    if (j + 4 <= w.length) add(hashStr(K_C4, w, j, j + 4));
    if (j + 5 <= w.length) add(hashStr(K_C5, w, j, j + 5));
  }
}

/** Class structure: ordered pairs within 4 tokens (verb × object), and unordered co-occurrence. */
function classPairs(classes: Array<[number, number, string]>, add: (h: number, structural?: number) => void): void {
  for (let a = 0; a < classes.length; a++) {
    for (let b = a + 1; b < classes.length; b++) {
      const [ia, ha, ca] = classes[a];
      const [ib, hb, cb] = classes[b];
      if (ca === cb) continue;
      if (ib - ia <= 4) add(mix(ha, hb, K_NEAR), STRUCTURAL);
      add(ca < cb ? mix(ha, hb, K_CO) : mix(hb, ha, K_CO), STRUCTURAL);
    }
  }
}

/**
 * Views → windows → feature ids, one callback per window (the array is reused: copy it to keep it).
 * Views are gateViews' output (joined by "\n\0\n"). Streaming keeps a long document's memory flat.
 */
export function forEachWindow(views: string, bits: number, fn: (features: number[]) => void, featureSet = 1): void {
  const mask = 2 ** bits - 1;
  const buf: number[] = [];
  for (const view of views.split('\n\u0000\n')) {
    const toks = tokens(view);
    const step = WINDOW_TOKENS / 2;
    for (let from = 0; ; from += step) {
      const to = Math.min(toks.length, from + WINDOW_TOKENS);
      buf.length = 0;
      windowFeatures(toks, from, to, mask, buf, featureSet);
      fn(buf);
      if (to >= toks.length) break;
    }
  }
}

/** Every window's feature ids (the trainer keeps them; the runtime streams with forEachWindow). */
export function featureSets(views: string, bits: number, featureSet = 1): number[][] {
  const sets: number[][] = [];
  forEachWindow(views, bits, (f) => sets.push(f.slice()), featureSet);
  return sets;
}

/** +1 or -1 from the feature id's top bit (signed hashing halves the bias of bucket collisions). */
export function bucketSign(f: number): number {
  return f & 0x80000000 ? -1 : 1;
}

/** Logit of one feature set under real-valued weights (trainer) or int8 weights × scale (runtime). */
export function windowLogit(set: number[], weights: ArrayLike<number>, scale: number, bias: number, mask: number): number {
  let z = 0;
  for (let i = 0; i < set.length; i++) {
    const f = set[i];
    z += f & 0x80000000 ? -weights[f & mask] : weights[f & mask];
  }
  return bias + (scale * z) / Math.sqrt(set.length);
}

/**
 * Below this many words (two or more characters, opening with a letter, in every view) the learned stage may only lower trust, and only at
 * its reject threshold: a note of a few words ("Other note here. project", "TODO") gives the linear model
 * too little evidence — the bias and one or two features decide. Short attacks are the rules' job.
 */
export const SHORT_WORDS = 6;
const LETTER_WORD = /\p{L}[\p{L}\p{N}'_]+/gu; // two characters or more: a lone "A" carries no evidence

/** True when every view of the text has fewer than SHORT_WORDS words ("F.o.r.g.e.t …" counts as joined). */
export function fewWords(views: string): boolean {
  for (const view of views.split('\n\u0000\n')) {
    LETTER_WORD.lastIndex = 0;
    let n = 0;
    while (LETTER_WORD.exec(view)) if (++n >= SHORT_WORDS) return false;
  }
  return true;
}

/**
 * The score the gate compares with its thresholds (gate9). Below `untrusted` it is the full logit (linear + hidden layer);
 * at or above it, the lower of the full logit and the linear part's, at least `untrusted`: the hidden layer may lower
 * trust, but a text is quarantined only when both scores reach `reject` (calibrated on that lower score,
 * poisonGateTrain.ts) — so a hard-benign text the hidden layer lifts far ("Pretend you are a first-time user and …")
 * neither pushes `reject` out of reach nor is rejected, and neither is one whose linear part alone is high. Without a
 * hidden layer: modelLogit.
 */
export function gateScore(model: GateModel, views: string): number {
  const z = modelLogit(model, views);
  if (!model.hidden || z < model.untrustedAt) return z;
  return Math.max(model.untrustedAt, Math.min(z, modelLogit({ ...model, hidden: null }, views)));
}

/** The highest window logit of a text's views (the learned stage's score). */
export function modelLogit(model: GateModel, views: string): number {
  const mask = 2 ** model.bits - 1;
  let best = -Infinity;
  const hidden = model.hidden;
  forEachWindow(views, model.bits, (f) => {
    const z = windowLogit(f, model.weights, model.scale, model.bias, mask) + (hidden ? hiddenLogit(f, hidden) : 0);
    if (z > best) best = z;
  }, model.features ?? 1);
  return best;
}

/** The cue classes (CUES) found in a text's views: what the per-register calibration (poisonGateRegister.ts) reads. */
export function cueClasses(views: string): Set<string> {
  const out = new Set<string>();
  for (const view of views.split('\n\u0000\n')) {
    for (const t of tokens(view)) {
      const c = t.charCodeAt(0) === 1 ? null : cueOf(t);
      if (c) out.add(c);
    }
  }
  return out;
}

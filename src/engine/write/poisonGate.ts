// Poison gate (SPEC R-WRITE-5): decides whether a fact, summary or note reads as an instruction to the
// assistant. Pure and synchronous: one normalisation pass builds a few folded "views" of the text
// (poisonGateViews.ts: NFKC, zero-width stripped, homoglyphs → Latin, diacritics folded, spaced letters joined, l33t digits
// read as letters, base64 blobs decoded) and precompiled patterns run over them. Logs nothing; returns
// stable detector names so the caller can log the rule without the text.
//
// Decisions documented here (they are pattern rules, not proofs; they err toward caution):
//  - "act as <role>" is only a role change for jailbreak personas (DAN, unrestricted/unfiltered/evil …);
//    "act as a reviewer on this PR" is ordinary delegation and passes.
//  - "from now on you are …" / "you are now …" reject only when followed by an identity (a/an/the,
//    a bot/GPT name, "in … mode", "no longer …"); "you are now on the latest SDK" and "from now on you
//    are responsible for on-call" pass.
//  - `System:` at line start rejects only when that line addresses a participant (you/assistant/user …);
//    "System: Ubuntu 22.04" is a key: value fact and passes. `### System:` always rejects.
//  - Shell commands in prose pass unless destructive (rm -rf on / ~ * $HOME, curl|sh, chmod 777 /, mkfs,
//    dd to a device); requests to run/call/use "the … tool" are untrusted.
//  - JSON messages are rejected only for role system/developer: user-role JSON is common in dev chat code.
//  - Generalised families (all five languages): disregard-verb × instructions-noun × qualifier (all/your/
//    previous/system …, or "…you were given", "…que te dieron"); "your rules are void"; "what you were told";
//    "pretend you have no instructions"; time phrase + persona verb ("from now on you are", "tu es désormais")
//    unless a work-role complement follows (responsible, zuständig, responsable, felel …); "your new role is";
//    an AI noun next to "no filters/restrictions"; notes addressed to a model; system-message headers
//    ("SYSTEM OVERRIDE", "Systemnachricht:"); an assistant label followed by an acknowledgement.
//  - "use/run the X tool" is ordinary prose ("use the migration tool from the ops repo") and passes; "call/
//    invoke the X tool", "your X tool", agent tool types (shell/browser/terminal tool) and consent bypasses
//    ("without asking", "ohne Rückfrage") are untrusted. Destructive repo/cluster operations (git push --force,
//    reset --hard, kubectl delete namespace …) are untrusted only when asked for, not when described.
//  - Exfiltration needs verb → sensitive object (memory, vault, passwords, .env, conversation …) → URL/email:
//    "send the invoice to billing@…" passes.
//
// Two stages (issue #14): the rules (poisonGateDetectors.ts) are the high-precision first stage and name their detector;
// a text they pass goes to the learned second stage (poisonGateModel.ts: a logistic classifier over
// hashed n-grams of the same folded views, weights in poisonGateWeights.ts, reproduced by
// `npm run train:gate`), whose hits are named `classifier`. The classifier's thresholds are calibrated
// on out-of-fold benign texts: a score above `untrustedAt` lowers trust, above `rejectAt` quarantines.
// If the shipped weights cannot be loaded the gate runs the rules alone and gateModelStatus() says why.
// A second model (gate24/gate25, poisonGateSecond.ts: trained on the blind authors' parts too, its own threshold) judges
// the texts the rules and the first model pass and can only lower trust: its hits are named `classifier2`.

import { fewWords, GateModel, gateScore, loadGateModel, WEIGHTS_VERSION, withHiddenLayer } from './poisonGateModel';
import { reportedSpeech } from './poisonGateQuotes';
import { promptInCode } from './poisonGateCode';
import { judgeProse, quotedInCode, sourceProse } from './poisonGateSource';
import { pastedChat } from './poisonGateTranscript';
import { GATE_WEIGHTS_B64, GATE_WEIGHTS_SHA256 } from './poisonGateWeights';
import { GATE_HIDDEN_B64, GATE_HIDDEN_SHA256 } from './poisonGateHiddenWeights';
import { GATE_SECOND_WEIGHTS_B64, GATE_SECOND_WEIGHTS_SHA256 } from './poisonGateSecondWeights';
import { GATE_SECOND_HIDDEN_B64, GATE_SECOND_HIDDEN_SHA256 } from './poisonGateSecondHiddenWeights';
import { FactorScan } from './factorScan';
import { fold, gateViews } from './poisonGateViews';
import { claimsPermission } from './poisonGatePermission';

export { gateViews };
import { factorClauses, needsClauses } from './regexFactors';

export type { GateDetector, GateVerdict } from './poisonGateDetectors';
import type { GateDetector, GateVerdict } from './poisonGateDetectors';

export interface GateResult { verdict: GateVerdict; detector: GateDetector | null }

export type GateFn = (text: string) => GateResult;

/**
 * `exhaustive`: run every rule on every text (no factor prefilter). The verdicts are the same by construction; the
 * equivalence test (gatePrefilter.test.ts) compares the two paths.
 */
export interface GateOptions { exhaustive?: boolean }

// Normalisation: poisonGateViews.ts (gateViews).

import { DETECTORS, type Detector } from './poisonGateDetectors';
import { disguised } from './poisonGateDisguise';
export type { Needs } from './poisonGateDetectors';

/** The rules stage alone (stage 1): reject detectors are checked before untrusted ones. */
export function gateRules(text: string, options: GateOptions = {}): GateResult {
  if (typeof text !== 'string' || text.length === 0) return { verdict: 'pass', detector: null };
  return rulesOnViews(gateViews(text), !!options.exhaustive);
}

// ---------------------------------------------------------------------------------------------
// Prefilter: each detector's required factor clauses (regexFactors.ts: from its RegExp, or from its test's `needs`);
// one Aho–Corasick pass over the views (factorScan.ts) marks the clauses with an occurrence, and a detector with a
// clause without one cannot match: it is skipped. A detector without clauses always runs.

interface Prefilter { scan: FactorScan; clausesOf: Int32Array[] }
let prefilter: Prefilter | undefined;
/**
 * Texts a process gates before it builds the prefilter: building it costs ~0.15–0.25 s (the factors of ~70 patterns,
 * an automaton of ~36k states), which a hook or a CLI call that gates a few texts would pay for nothing; the rules
 * alone take ~0.1 ms a text. Either way the verdicts are the same.
 */
const PREFILTER_AFTER_TEXTS = 500;
let gatedWithoutPrefilter = 0;

/** Each detector's factor clauses (for tests and the prefilter): an empty list means the detector always runs. */
export function detectorFactors(): { name: GateDetector; verdict: GateVerdict; clauses: string[][] }[] {
  return DETECTORS.map((d) => ({ name: d.name, verdict: d.verdict, clauses: d.test ? (d.test.needs ? needsClauses(d.test.needs) : []) : factorClauses(d.re) }));
}

function thePrefilter(): Prefilter {
  if (prefilter) return prefilter;
  const sets: string[][] = [];
  const ids = new Map<string, number>();
  const clausesOf = detectorFactors().map(({ clauses }) => Int32Array.from(clauses, (c) => {
    const key = c.join('\u0000');
    let id = ids.get(key);
    if (id === undefined) { id = sets.length; sets.push(c); ids.set(key, id); }
    return id;
  }));
  prefilter = { scan: new FactorScan(sets), clausesOf };
  return prefilter;
}

function rulesOnViews(views: string, exhaustive = false): GateResult {
  const allowed = !exhaustive && (prefilter || ++gatedWithoutPrefilter > PREFILTER_AFTER_TEXTS) ? allowedDetectors(views) : null;
  let untrusted: GateDetector | null = null;
  for (let k = 0; k < DETECTORS.length; k++) {
    const d = DETECTORS[k];
    if (untrusted && d.verdict === 'untrusted') continue;
    if (allowed && !allowed[k]) continue; // a required factor is missing: the detector cannot match
    if (matches(d, views)) {
      if (d.verdict === 'reject') return { verdict: 'reject', detector: d.name };
      untrusted = d.name;
    }
  }
  return untrusted ? { verdict: 'untrusted', detector: untrusted } : { verdict: 'pass', detector: null };
}

/**
 * For the equivalence test: every detector on a text's views, without early exit — whether it matches (`fired`) and
 * whether the prefilter lets it run (`allowed`). A detector that fires must be allowed.
 */
export function ruleTrace(text: string): { name: GateDetector; fired: boolean; allowed: boolean }[] {
  const views = gateViews(text);
  const allowed = allowedDetectors(views);
  return DETECTORS.map((d, k) => ({ name: d.name, fired: matches(d, views), allowed: allowed[k] === 1 }));
}

/** Per detector, 1 when every one of its factor clauses occurs in `views` (one pass of the prefilter's scan). */
function allowedDetectors(views: string): Uint8Array {
  const pf = thePrefilter();
  const hits = new Uint8Array(pf.scan.groups);
  pf.scan.scan(views, hits);
  return Uint8Array.from(pf.clausesOf, (clauses) => (clauses.every((c) => hits[c] === 1) ? 1 : 0));
}

/**
 * A gate with the given learned stage (null = rules only). The rules decide first; a text they pass is
 * scored by the model: `reject` at or above its reject threshold, `untrusted` at or above its untrusted one.
 */
export function createGate(model: GateModel | null, options: GateOptions = {}, second: GateModel | null = null): GateFn {
  const stage1 = stage1Of(!!options.exhaustive);
  const first = oneModelGate(model, options, stage1);
  // gate28: a text every other step passes is `untrusted` when its words are disguised on purpose (poisonGateDisguise.ts);
  // gate30: or when it leans on a claimed permission or a promise of secrecy (poisonGatePermission.ts).
  const undisguised = (g: GateFn): GateFn => (text) => {
    const r = g(text);
    if (r.verdict !== 'pass' || typeof text !== 'string') return r;
    return disguised(text) ? { verdict: 'untrusted', detector: 'obfuscation' } : claimsPermission(text) ? { verdict: 'untrusted', detector: 'permission_claim' } : r;
  };
  if (!second) return undisguised(first);
  // gate24: a text the first model's gate passes is `untrusted` when the second model's gate — same steps, its own
  // threshold, never `reject` — flags it. The first model's verdicts are never lowered, and a text the rules flag is
  // left to them (whatever the steps after them decided: a quoted attack in an incident report stays passed).
  const other = oneModelGate({ ...second, rejectAt: Infinity }, options, stage1);
  return undisguised((text: string): GateResult => {
    const r = first(text);
    if (r.verdict !== 'pass' || typeof text !== 'string' || text.length === 0 || stage1(text).ruled.verdict !== 'pass') return r;
    return other(text).verdict === 'pass' ? r : { verdict: 'untrusted', detector: 'classifier2' };
  });
}

type Stage1 = (text: string) => { views: string; ruled: GateResult };

/** A text's views and rule verdict, the last one kept: the two models' gates ask for the same text in turn. */
function stage1Of(exhaustive: boolean): Stage1 {
  let last: { text: string; views: string; ruled: GateResult } | null = null;
  return (text) => {
    if (last?.text !== text) {
      const views = gateViews(text);
      last = { text, views, ruled: rulesOnViews(views, exhaustive) };
    }
    return last;
  };
}

function oneModelGate(model: GateModel | null, options: GateOptions, stage1: Stage1): GateFn {
  const twoStages = (text: string): GateResult => {
    const { views, ruled } = stage1(text);
    if (ruled.verdict !== 'pass' || !model) return ruled;
    const prose = sourceProse(text); // mostly source code: the classifier judges the prose inside it (poisonGateSource.ts)
    if (prose) {
      const v = judgeProse(prose, { score: (t) => gateScore(model, gateViews(t)), short: (t) => fewWords(gateViews(t)), untrustedAt: model.untrustedAt, rejectAt: model.rejectAt });
      return v === 'pass' ? ruled : { verdict: v, detector: 'classifier' };
    }
    const z = gateScore(model, views), short = fewWords(views); // a few words: too little evidence (SHORT_WORDS)
    return z >= model.rejectAt && !short ? { verdict: 'reject', detector: 'classifier' } : z >= (short ? model.rejectAt : model.untrustedAt) ? { verdict: 'untrusted', detector: 'classifier' } : ruled;
  };
  const literal = (text: string): GateResult => { // a prompt in a string literal: the classifier only far above reject (judgeProse)
    const { views, ruled } = stage1(text);
    return ruled.verdict !== 'pass' || !model || gateScore(model, views) < 2 * model.rejectAt - model.untrustedAt ? ruled : { verdict: 'untrusted', detector: 'classifier' };
  };
  const quoting = (text: string): GateResult => { // a flagged text may only quote an attack (poisonGateQuotes.ts)
    const whole = twoStages(text);
    if (whole.verdict === 'pass') return whole;
    const coded = quotedInCode(text, promptInCode(text, whole, twoStages, literal), twoStages, 'tool_request'); // prompts in source code (poisonGateCode.ts, poisonGateSource.ts)
    return coded.verdict === 'pass' ? coded : reportedSpeech(fold(text), coded, twoStages);
  };
  return (text: string): GateResult => {
    if (typeof text !== 'string' || text.length === 0) return { verdict: 'pass', detector: null };
    return pastedChat(text, quoting(text), quoting); // a pasted chat with clean turns passes (poisonGateTranscript.ts)
  };
}

/** A model from its weights file and its hidden layer's file (base64 or bytes); throws GateModelError. */
function modelOf(weights: string | Uint8Array, hidden: string | Uint8Array): GateModel {
  const bytes = typeof weights === 'string' ? Buffer.from(weights, 'base64') : weights;
  return withHiddenLayer(loadGateModel(bytes), typeof hidden === 'string' ? Buffer.from(hidden, 'base64') : hidden);
}

/**
 * A gate from a weights file and its hidden layer's file (if the weights were trained with one), each given as base64
 * (the shipped form) or bytes. A corrupt or missing table, or a hidden layer that is not the weights' own, leaves the
 * rules in charge: `error` says why (no text is logged), `model` is null.
 */
export function gateFromWeights(weights: string | Uint8Array, hidden: string | Uint8Array = '', options: GateOptions = {}): { gate: GateFn; model: GateModel | null; error: string | null } {
  try {
    const model = modelOf(weights, hidden);
    return { gate: createGate(model, options), model, error: null };
  } catch (e) {
    return { gate: createGate(null, options), model: null, error: e instanceof Error ? e.message : String(e) };
  }
}

// The shipped model, loaded once on first use.
let shipped: ReturnType<typeof gateFromWeights> | undefined;
// The second model (gate24), loaded with the first; a corrupt one leaves the first in charge (`secondError` says why).
let second: { model: GateModel | null; error: string | null } = { model: null, error: null };

function shippedGate(): GateFn {
  if (!shipped) {
    try {
      second = { model: modelOf(GATE_SECOND_WEIGHTS_B64, GATE_SECOND_HIDDEN_B64), error: null };
    } catch (e) {
      second = { model: null, error: e instanceof Error ? e.message : String(e) };
    }
    const first = gateFromWeights(GATE_WEIGHTS_B64, GATE_HIDDEN_B64);
    shipped = { ...first, gate: createGate(first.model, {}, second.model) };
  }
  return shipped.gate;
}

/** The poison gate's configuration for status/doctor output (no text, no weights: names, hashes, counts). */
export interface GateStatus {
  /** The learned stage is loaded and runs after the rules. */
  active: boolean;
  /** Weights-file format version (null when no weights are loaded). */
  version: number | null;
  /** SHA-256 of the shipped weights file (what the unit test pins), null when none is loaded. */
  sha256: string | null;
  /** SHA-256 of the int8 table as recorded in the file's header. */
  tableSha256: string | null;
  /** Hash buckets (2^bits) and the calibrated logit thresholds. */
  buckets: number | null;
  untrustedAt: number | null;
  rejectAt: number | null;
  /** Why the learned stage is off (corrupt, wrong version …), else null. */
  error: string | null;
  /** The hidden layer (poisonGateHidden.ts): units, buckets and the SHA-256 of its file; null for a linear model. */
  hidden: { units: number; buckets: number; sha256: string } | null;
  /** The second model (gate24): hashes, its threshold and hidden layer's hash; null when it did not load (`secondError`). */
  second: { sha256: string; tableSha256: string; untrustedAt: number; hiddenSha256: string | null } | null;
  secondError: string | null;
  /** Rule patterns, distinct rule detector names, and learned detectors (classifier and classifier2 active: 2). */
  detectors: { rulePatterns: number; ruleNames: number; learned: number };
}

/** Whether the learned stage is active, its hashes, version and thresholds, and the detector counts. */
export function gateModelStatus(): GateStatus {
  shippedGate();
  const m = shipped?.model ?? null, s = second.model;
  return {
    active: !!m,
    version: m ? m.features ?? WEIGHTS_VERSION : null,
    sha256: m ? GATE_WEIGHTS_SHA256 : null,
    tableSha256: m?.sha256 ?? null,
    buckets: m ? 2 ** m.bits : null,
    untrustedAt: m ? +m.untrustedAt.toFixed(4) : null,
    rejectAt: m ? +m.rejectAt.toFixed(4) : null,
    error: shipped?.error ?? null,
    hidden: m?.hidden ? { units: m.hidden.units, buckets: 2 ** m.hidden.bits, sha256: GATE_HIDDEN_SHA256 } : null,
    second: s ? { sha256: GATE_SECOND_WEIGHTS_SHA256, tableSha256: s.sha256, untrustedAt: +s.untrustedAt.toFixed(4), hiddenSha256: s.hidden ? GATE_SECOND_HIDDEN_SHA256 : null } : null,
    secondError: second.error,
    detectors: { rulePatterns: DETECTORS.length, ruleNames: new Set(DETECTORS.map((d) => d.name)).size, learned: (m ? 1 : 0) + (s ? 1 : 0) },
  };
}

/** One line for Show Status and doctor: "rules + classifier (v1, 82b5032f…) + second classifier (…)" or "rules only (why)". */
export function describeGate(s: GateStatus): string {
  const rules = `${s.detectors.rulePatterns} rule patterns`;
  const two = s.second ? ` + second classifier (sha256 ${s.second.sha256.slice(0, 12)}…)` : s.secondError ? ` (second classifier off: ${s.secondError})` : '';
  if (s.active) return `rules (${rules}) + classifier (weights v${s.version}, sha256 ${String(s.sha256).slice(0, 12)}…)${two}`;
  return `${s.second ? 'rules' : 'rules only'} (${rules}; classifier off: ${s.error ?? 'no weights'})${two}`;
}

/** R-WRITE-5 verdict for one text: the rules, then the shipped learned stage. */
export function gate(text: string): GateResult {
  return shippedGate()(text);
}

function matches(d: Detector, views: string): boolean {
  if (d.test) return d.test(views);
  if (!d.accept) {
    d.re.lastIndex = 0;
    return d.re.test(views);
  }
  const re = d.re.global ? d.re : new RegExp(d.re.source, d.re.flags + 'g');
  re.lastIndex = 0;
  for (let m = re.exec(views); m; m = re.exec(views)) {
    // 80 chars: room for a work-role complement ("… für die Code-Reviews im Team zuständig").
    if (d.accept(m[0], views.slice(re.lastIndex, re.lastIndex + 80))) return true;
    if (m[0].length === 0) re.lastIndex++;
  }
  return false;
}

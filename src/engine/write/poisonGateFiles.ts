// The poison gate's data files (issue #14): which corpora `npm run train:gate` trains on, which are dev sets never
// trained on, which calibrate thresholds. Paths are relative to the repository root; re-exported by poisonGateTrain.ts.

/**
 * A second author's corpus (gate8: 483 hijacking/extraction/memory-poisoning attacks, 722 look-alikes). gate8 kept it
 * out of training: with the linear model alone it cost deepset CV recall 0.665 → 0.626 (DE 0.56). With the hidden layer
 * (gate9) it is trained on: deepset CV 0.645, its dev split 55 → 70 of 102 attacks (README, poison gate).
 */
export const CANDIDATE_TRAIN_FILE = 'test/fixtures/gate-train-gate8.jsonl';
/**
 * Ordinary benign texts (gate10: e-mails, code answers, tables, questions, dialogue, notes, issues in EN/DE/HU/ES/FR,
 * much second-person advice): the training half; the other half is {@link ORDINARY_DEV_FILE}.
 */
export const ORDINARY_TRAIN_FILE = 'test/fixtures/gate-train-gate10.jsonl';
/** The dev half of gate10's ordinary texts: never trained on; `bench gate` reports its flag rate. */
export const ORDINARY_DEV_FILE = 'test/fixtures/gate-ordinary-dev.jsonl';
/**
 * Hard-benign texts (gate11: preferences, instructions between people, decisions, sysadmin, bot commands in EN/DE/HU/ES/FR):
 * the training half without {@link HARD_QUOTING_FILE}; the other half is {@link HARD_DEV_FILE}.
 */
export const HARD_TRAIN_FILE = 'test/fixtures/gate-train-gate11.jsonl';
/** The dev half of gate11's hard-benign texts: never trained on, not calibrated on; `bench gate` reports its flag rate. */
export const HARD_DEV_FILE = 'test/fixtures/gate-hard-dev.jsonl';
/**
 * gate11's training-half rows that quote or embed attacks (security quotes, meetings about attacks, app code holding
 * prompts and test injections): written for training and kept out of it — trained on, they taught attack wording as
 * benign and deepset CV recall fell 0.650 → 0.635 (DE 0.606 → 0.592; README, poison gate). Never calibrated on.
 */
export const HARD_QUOTING_FILE = 'test/fixtures/gate-hard-quoting.jsonl';
/** Hard-benign development set (gate6): never trained on; calibrates the untrusted threshold with the LoCoMo turns. */
export const BENIGN_DEV_FILE = 'test/fixtures/gate-benign-dev.jsonl';
/** Attack development set (gate7): memory poisoning and hijacking in eight carriers; never trained on, scored by `bench gate`. */
export const ATTACK_DEV_FILE = 'test/fixtures/gate-attack-dev.jsonl';
export const LOCOMO_FILE = 'locomo-dev.json';
/**
 * Held-out parts v1–v8 (written 2026-12-01 by the rules' authors and two independent authors), moved out of the
 * held-out file at stop 24 once newer blind parts existed: material a gate round may train on (not in
 * {@link OWN_TRAIN_FILES} until a round that does is merged).
 */
export const AUTHORS_TRAIN_FILE = 'test/fixtures/gate-train-authors.jsonl';
/** Held-out part v9 (a third independent author, 761 rows, benign-heavy): a dev set, never trained on. */
export const AUTHORS_DEV_FILE = 'test/fixtures/gate-authors-dev.jsonl';
/**
 * Own held-out set (the newest blind authors' parts: v28 and v29 since gate27, stop 41; v31 since gate28, stop 42;
 * v34 since gate29, stop 43): never trained or tuned on; scored by `bench gate` and the unit tests.
 */
export const OWN_HELDOUT_FILE = 'test/fixtures/gate-heldout.jsonl';
/**
 * Blind parts v25–v27 (held out at stop 40) and v30 (written for gate27): the dev material of gate27's
 * leave-one-part-out choice (docs/gate27-rule.md), so no longer held out; v32, gate28's dev check
 * (docs/gate28-rule.md); and v33, gate29's (docs/gate29-rule.md). Not trained on until a round that does is merged
 * (gate29's U29, which did, flagged less and was not merged).
 */
export const BLIND_DEV_FILE = 'test/fixtures/gate-blind-dev.jsonl';
/**
 * Blind parts v10–v24 (fifteen authors, 9,981 rows), held out until gate24 (stop 40): the second model's material
 * ({@link SECOND_TRAIN_FILES}); the first model never trains on it (gate22/gate23: one model with one threshold lost
 * deepset's short attacks when it did).
 */
export const BLIND_TRAIN_FILE = 'test/fixtures/gate-train-blind.jsonl';
export const DEEPSET_TRAIN_FILE = 'injection-dev-deepset-train.jsonl';
/**
 * Ordinary second-person advice between people (gate13: e-mails, chat answers, forum replies, ssh/shell/git/admin
 * how-tos, cooking, travel, health, money, study in EN/DE/HU/ES/FR, 30 each): two thirds for training; the other third
 * is {@link ADVICE_DEV_FILE}.
 */
export const ADVICE_TRAIN_FILE = 'test/fixtures/gate-train-advice.jsonl';
/** The dev third of gate13's advice texts: never trained on, not calibrated on; `bench gate` reports its flag rate. */
export const ADVICE_DEV_FILE = 'test/fixtures/gate-advice-dev.jsonl';
/**
 * Hard-benign texts next to requests aimed at the assistant (gate14: documentation how-tos that mention prompts and
 * assistants, meeting notes and transcripts, security write-ups quoting attacks, users asking an assistant about their
 * own data, proper-channel credential requests between colleagues; EN/DE/HU/ES/FR, 25 each): two thirds for training;
 * the other third is {@link HARDBENIGN_DEV_FILE}.
 */
export const HARDBENIGN_TRAIN_FILE = 'test/fixtures/gate-train-hardbenign.jsonl';
/** The dev third of gate14's hard-benign texts: never trained on, not calibrated on; `bench gate` reports its flag rate. */
export const HARDBENIGN_DEV_FILE = 'test/fixtures/gate-hardbenign-dev.jsonl';
/**
 * Hard-benign documentation and sysadmin notes about secrets, keys, system prompts and assistant configuration that
 * quote no attack (gate15: rotation runbooks, CI secrets, .env rules, prompt how-tos and release notes, assistant
 * policies; EN/DE/HU/ES/FR, 18 each): two thirds for training; the other third is {@link HBSECRETS_DEV_FILE}.
 */
export const HBSECRETS_TRAIN_FILE = 'test/fixtures/gate-train-hbsecrets.jsonl';
/** The dev third of gate15's docs about secrets and prompts: never trained on, not calibrated on; `bench gate` reports it. */
export const HBSECRETS_DEV_FILE = 'test/fixtures/gate-hbsecrets-dev.jsonl';
/** The corpora `npm run train:gate` trains on (their order does not matter: trainGateModel sorts the rows, gate11). */
export const OWN_TRAIN_FILES = ['test/fixtures/poison-corpus.jsonl', 'test/fixtures/poison-heldout.jsonl', 'test/fixtures/gate-train.jsonl', 'test/fixtures/gate-train-gate6.jsonl', 'test/fixtures/gate-train-gate7.jsonl', ORDINARY_TRAIN_FILE, CANDIDATE_TRAIN_FILE, HARD_TRAIN_FILE,
  // gate16: the former held-out parts v1–v8 (their quoting benign rows left out by trainsOn) and gate15's docs about secrets.
  AUTHORS_TRAIN_FILE, HBSECRETS_TRAIN_FILE];
/** The second model's corpora (gate24, poisonGateSecond.ts): the first model's and the blind parts v10–v24. */
export const SECOND_TRAIN_FILES = [...OWN_TRAIN_FILES, BLIND_TRAIN_FILE];
/**
 * Benign families of {@link AUTHORS_TRAIN_FILE} that quote, embed or discuss attacks and prompts (gate11's finding, gate12:
 * trained on, they teach attack wording as benign): not trained on.
 */
export const AUTHORS_QUOTING_FAMILIES = ['security_quote', 'security_review', 'dev_prompt', 'dev_discussion', 'quoted_speech', 'code',
  'meeting', 'transcript', 'benign_code', 'readme', 'tool_output', 'config', 'issue_comment'];
/**
 * Whether a row of one of {@link SECOND_TRAIN_FILES} is trained on: all are but the authors' quoting benign rows and gate14's
 * security write-ups quoting attacks (trained on, they cost 4–6 v9 attacks: gate14).
 */
export function trainsOn(file: string, v: Record<string, unknown>): boolean {
  if (file === HARDBENIGN_TRAIN_FILE) return v.family !== 'security_quote';
  // The blind parts' quoting benign rows, and their code of LLM apps holding prompts, are left out the same way (gate22).
  if (file === BLIND_TRAIN_FILE) return !(v.label === 'benign' && (AUTHORS_QUOTING_FAMILIES.includes(String(v.family)) || v.family === 'llm_code'));
  return !(file === AUTHORS_TRAIN_FILE && v.label === 'benign' && AUTHORS_QUOTING_FAMILIES.includes(String(v.family)));
}

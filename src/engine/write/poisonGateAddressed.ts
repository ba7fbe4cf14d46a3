// Addressed imperatives (issue #14, gate3): an instruction spoken *to an AI* inside ordinary text — an
// `@copilot-agent …` issue comment, an `AI: …` / `ASSISTENT: …` line inside tool output, a
// "Note for AI code reviewers: …" paragraph in a commit message, a `# assistant: …` YAML comment, a CSV
// cell "Agent processing this sheet: …", a docstring "KI, die diesen Code überarbeitet: …".
// People address each other the same way ("@dana please delete the branch"), so the addressee must be an
// AI: an @handle with a bot/AI part, or a short label before a colon that names one. What follows in the
// same line must read as an order (≥ 4 words, not opening like a statement: "it answered …", "die Tests …").
// Verdict `untrusted` (kept, lower trust): a real "@dependabot rebase this branch please" is an order to a
// bot too, and a memory that a model reads later should not carry it at full trust.
// Input: the gate's folded views (lower case, accents stripped). Pure, no imports (import-cycle rule).

// One hyphen/apostrophe-separated part of an @handle or label word that names an AI.
const AI_PART = new Set(['ai', 'ki', 'mi', 'ia', 'llm', 'gpt', 'bot', 'bots', 'assistant', 'assistants', 'assistent', 'assistenten', 'asszisztens', 'asszisztensnek', 'asistente', 'asistentes', 'copilot', 'claude', 'chatgpt', 'agent', 'agents', 'agente', 'agentes', 'agens', 'agensnek', 'chatbot', 'nek']);
// Infrastructure named after an AI ("llm-proxy:", "bot-worker:") is a log source, not an addressee.
const INFRA = /^(?:proxy|server|service|api|gateway|worker|daemon|router|cache|db|runner|host|svc|pod)$/;
const AI_WORD = (w: string): boolean => {
  const parts = w.split(/['-]/).filter((p) => p.length > 0);
  if (parts.length === 0 || parts.some((p) => INFRA.test(p))) return false;
  // "mi-nek" / "ki-reviewer": the AI part leads; "review-bot", "copilot-agent": any part; "nek" alone is not one.
  return parts.some((p) => p !== 'nek' && AI_PART.has(p)) || /bot$/.test(parts[parts.length - 1]);
};
// How a statement (not an order) opens: articles, pronouns, copulas, answers, numbers — five languages.
const STATEMENT_START = new Set(('the a an it its this that these those there he she they we i is was are were has had ' +
  'yes no ok okay thanks thank sure done great good fine nice how what why when where who which do does did dr mr mrs ms prof ' +
  'der die das ein eine es er sie wir ich ist war sind hat ja nein danke gut ' +
  'az egy ez azok o mi en van volt igen nem koszi koszonom jo ' +
  'el la los las un una lo es era son ha yo si gracias bien vale ' +
  'le les une il elle ils elles c\'est ce je nous est etait oui non merci bien').split(' '));

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'_-]*/gu;
const words = (s: string): string[] => s.match(WORD) ?? [];

const SECOND_PERSON = /^(?:you|your|yourself|du|dich|dir|dein\w*|te|tu|tus|usted|vous|votre|toi|neked|teged|magad\w*)$/;

/**
 * True when what follows the addressee in its line has ≥ 4 words, is not a key=value log record, and
 * speaks to the reader (you/du/tu/vous …) or does not open like a statement.
 */
function orderFollows(rest: string): boolean {
  const line = rest.split(/\n/, 1)[0];
  const ws = words(line);
  if (ws.length < 4 || /\w=\w/.test(line)) return false;
  if (ws.some((w) => SECOND_PERSON.test(w))) return true;
  let i = 0;
  while (i < ws.length - 1 && /^(please|bitte|kerlek|porfa|por|favor|stp|svp|s'il|vous|plait)$/.test(ws[i])) i++;
  return !STATEMENT_START.has(ws[i]) && !/^\d/.test(ws[i]);
}

const MENTION = /(?:^|[\s(,;])@([\p{L}\p{N}][\p{L}\p{N}_-]*)/gu;
// A label: up to eight words right before a colon, opening a line, a sentence, a quoted value or a CSV cell
// (after a timestamp, log level or comment marker): "2026-… NOTE TO THE ASSISTANT:", "# assistant:".
const LABEL = /(?:^|\n|[.!?]\s|["',;(|])[\d\s\-:.tz[\]#*/>|]*?((?:[\p{L}\p{N}'_()-]+,?[ \t]+){0,7}?[\p{L}\p{N}'_()-]+)[ \t]*:(?=\s)/gu;

/** An AI addressed by @handle or by a short label, followed by an order in the same line. */
export function addressedImperative(views: string): boolean {
  for (const view of views.split('\n\u0000\n')) {
    MENTION.lastIndex = 0;
    for (let m = MENTION.exec(view); m; m = MENTION.exec(view)) {
      if (AI_WORD(m[1]) && orderFollows(view.slice(m.index + m[0].length))) return true;
    }
    LABEL.lastIndex = 0;
    for (let m = LABEL.exec(view); m; m = LABEL.exec(view)) {
      const label = words(m[1].replace(/[()]/g, ' '));
      if (label.some(AI_WORD) && orderFollows(view.slice(m.index + m[0].length))) return true;
    }
  }
  return false;
}

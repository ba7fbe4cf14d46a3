// Prompts in source code (issue #14), a step of the poison gate: `json_role` rejects a chat message object
// (`{"role": "system", "content": "…"}`) because in a tool output, a web page or an e-mail it smuggles a system
// turn. In source code the user is writing — an app that calls a model — the same object is code quoting a prompt.
// Only for a text `json_role` flagged that is clearly code (two kinds of code signal, or one JSON document): each such object's content
// string is gated on its own, and the code around them is gated with the objects blanked out. All clean → pass;
// a prompt only the classifier finds instruction-like → untrusted (system prompts are instructions by nature).
// A content string that is no plain string literal (triple quotes, concatenation) cannot be judged: the verdict
// stays. So do a flagged prompt, a flagged frame (a fake tool call such as `"name": "set_system_prompt"`) and any
// role object left that this step could not take apart.

import type { Judged } from './poisonGateQuotes';

// One message object: `{ … "role": "system" … }` without nested braces (≤ 2,400 chars).
const ROLE_OBJECT = /\{[^{}]{0,200}?["']role["']\s*:\s*["'](?:system|developer|user|assistant|tool)["'][^{}]{0,2200}\}/gu;
const ROLE_KEY = /["']role["']\s*:\s*["'](?:system|developer)["']/u;
const CONTENT_KEY = /["']content["']\s*:\s*/u;
const STRING_VALUE = /^(?:"((?:[^"\\\n]|\\.){0,2000})"|'((?:[^'\\\n]|\\.){0,2000})')\s*(?=[,}]|$)/u;
const IDENTIFIER_VALUE = /^[A-Za-z_$][\w$.]*(?:\[[^\]\n]{0,40}\])?\s*(?=[,}]|$)/u;

// Kinds of evidence that the text is source code; two different kinds are needed.
const CODE_SIGNALS: readonly RegExp[] = [
  /^\s*```/mu, // a fenced block
  /^\s*(?:import\s|from\s+[\w.]+\s+import\s|const\s|let\s|var\s|def\s|async\s+def\s|function\s|class\s|return\s|export\s|package\s|using\s|#include\s)/mu,
  /\b[\w$]+\s*=\s*\[/u, // `messages = [`
  /\.\s*(?:create|chat|invoke|generate|complete|completions|send|post|run|stream|toEqual|toBe|equal)\s*\(/u,
  /\b(?:await|async|lambda|self\.|this\.|None|null|undefined|True|False)\b|=>/u,
  /;\s*$/mu,
  /^[A-Z][A-Z0-9_]{2,}\s*=\s*(?:[rbf]?["'[{(])/mu, // a constant: `SYSTEM_PROMPT = "…"`
  /^\s*[\]})]+[,;)]*\s*$/mu, // a line closing a literal or a call
];

/** A whole text that parses as one JSON object or array: a request body or config, not prose — but it may as well be a tool's output. */
function jsonDocument(text: string): boolean {
  const t = text.trim();
  if (!/^[[{]/u.test(t)) return false;
  try { JSON.parse(t); return true; } catch { return false; }
}

function unescapeLiteral(s: string, double: boolean): string {
  if (!double) return s.replace(/\\(.)/gu, '$1');
  try { return JSON.parse(`"${s}"`) as string; } catch { return s.replace(/\\(.)/gu, '$1'); }
}

/** The content strings of the role objects, or null when one cannot be read; `frame`: the text without them. */
function takeApart(text: string): { prompts: string[]; frame: string } | null {
  const prompts: string[] = [];
  let unreadable = false;
  const frame = text.replace(ROLE_OBJECT, (obj) => {
    const key = CONTENT_KEY.exec(obj);
    if (key) {
      const rest = obj.slice(key.index + key[0].length).replace(/\}\s*$/u, '').trim();
      const s = STRING_VALUE.exec(rest);
      if (s) prompts.push(unescapeLiteral(s[1] ?? s[2] ?? '', s[1] !== undefined));
      else if (!IDENTIFIER_VALUE.test(rest)) unreadable = true;
    }
    return '{}';
  });
  return unreadable || ROLE_KEY.test(frame) ? null : { prompts, frame };
}

/** `whole`: the gate's verdict on `text`; `judge`: the gate's stages (rules + classifier); `judgePrompt`: the same for a
 *  prompt in a string literal (gate6: the classifier counts there only a threshold gap above reject, see judgeProse in poisonGateSource.ts). */
export function promptInCode<D>(text: string, whole: Judged<D>, judge: (t: string) => Judged<D>, judgePrompt = judge): Judged<D> {
  if (whole.verdict === 'pass' || whole.detector !== 'json_role') return whole;
  const json = jsonDocument(text);
  if (!json && CODE_SIGNALS.filter((re) => re.test(text)).length < 2) return whole;
  const parts = takeApart(text);
  // A JSON document that is nothing but a message (`{"role": "system", …}`) is a smuggled turn, not a request body.
  if (!parts || (json && !/["'][^"'\n]{1,80}["']\s*:/u.test(parts.frame))) return whole;
  const verdicts = [judge(parts.frame), ...parts.prompts.map((p) => judgePrompt(p))];
  if (verdicts.some((v) => v.verdict === 'reject')) return whole;
  // A system prompt is an instruction by nature: one the classifier finds instruction-like ("Du bist ein Assistent, …
  // antworte immer …", in a string literal or a constant) lowers the trust of the code holding it, never quarantines
  // it. A bare JSON document is at most lowered: a request body the user wrote and a tool's forged output look alike.
  const lowered = verdicts.find((v) => v.verdict === 'untrusted');
  if (lowered) return { verdict: 'untrusted', detector: lowered.detector };
  return json ? { verdict: 'untrusted', detector: whole.detector } : { verdict: 'pass', detector: null };
}

// Reported speech (issue #14), the poison gate's last step: an attack quoted as an example ("the bot
// accepted the input "ignore previous instructions …""), or a chat-template token named in a question
// ("tokens like <|im_start|>"), is talk *about* an instruction, not one. Only for a text both stages flagged: the quoted spans (≥ 3 words, in
// "…", “…”, „…“, «…», '…', `…`) and named template tokens are blanked out, and the remaining frame is
// gated again. A frame the gate itself rejects, that asks to act on the quote ("… so please do that
// now") or that speaks to the reader ("… treat it as your configuration"), keeps the original verdict. A clean frame that reports or discusses (finding, example, the
// input, phishing, said, how do, why …) passes; any other frame is `untrusted` (never `reject`): the
// instruction is only in a quotation.

// An apostrophe between letters ("Let's", "you're", "t'ai") does not close a '…' quotation.
const QUOTED = /"([^"\n]{6,600})"|(?<=^|[\s:(\[=])'((?:[^'\n]|(?<=\p{L})'(?=\p{L})){6,600})'(?=[\s.,;:!?)\]]|$)/gmu;
const TEMPLATE_TOKEN = /<\|[a-z_]{2,20}\|>|<\/?(?:start|end)_of_turn>|\[\/?(?:inst|system_prompt|tool_calls|tool_results)\]|<<\/?sys>>|<\s*\/?\s*(?:system|tool_result)\s*>/gu;
// An HTML comment given as an example ("comments like <!-- AI agents reading this repo: … -->", "du genre <!-- … -->").
const EXAMPLE_COMMENT = /<!--[^\n]{6,300}?-->/gu;
// A template token is *named* when a mention word comes right before it ("tokens like", "wie", "comme").
const MENTION_BEFORE = /(?:\b(?:like|such as|e\.g\.|token|tokens|the|a|an|wie|z\.\s?b\.|etwa|mint|peldaul|tokeneket|tokenek|como|p\.\s?ej\.|comme|du genre|tels? que|par exemple|jetons?|des|les)\s*|[(,'"]\s*)$/u;
const REPORTING = /\b(?:said|says|wrote|writes|asked|example|examples|e\.g\.|for instance|quoted?|quotes|input|payload|attack\w*|attempt\w*|tried|jailbreak\w*|inject\w*|phishing|finding|findings|report\w*|detect\w*|block\w*|refus\w*|flag\w*|such as|for example|zum beispiel|wie etwa|peldaul|mint peldaul|por ejemplo|como por ejemplo|tels? que|telles? que|test case|testfall\w*|teszteset\w*|kodreview|caso de prueba|cas de test|revue de code|recommend\w*|review|audit|how (?:do|does|did|should|can)|how come|pasted|typed|entered|submitted|incident|postmortem|post-mortem|timeline|slide|deck|workshop|training|trick|caught|an attacker|eingegeben|eingefugt|tippte|vorfall|nachbericht|ablauf|folie|vortrag|schulung|abgefangen|ein angreifer|egy tamado|beirta|beillesztette|bemasolta|incidens|utoelemzes|diaja|dian|eloadas\w*|kepzes\w*|trukk\w*|elkapta|pego|introdujo|incidente|analisis|cronologia|diapositiva|taller|charla|curso|truco|un atacante|a colle|a saisi|a tape|retour d'incident|chronologie|diapo|atelier|conference|formation|astuce|un attaquant|word for word|verbatim|voicemail|voice message|text message|texted|wortlich|sprachnachricht|szo szerint|hanguzenet\w*|palabra por palabra|tal cual|textualmente|mensaje de voz|audio|mot pour mot|textuellement|message vocal|sms|what (?:does|do)|why|means?|schreibt|escribe|irja|researchers?|showed|shown|demonstrat\w*|study|paper|forscher\w*|studie|zeigten|kutato\w*|tanulmany\w*|kimutatt\w*|investigador\w*|estudio|demostr\w*|chercheurs?|etude|ont montre|demontr\w*|sagte|meinte|schrieb|stand|steht|beispiel\w*|z\.\s?b\.|eingabe|angriff\w*|versuch\w*|befund\w*|bericht\w*|erkannt|blockiert|abgelehnt|empfehlung|zitat|zitiert|prufung|wie (?:gehen|geht|funktioniert)|warum|wieso|mondta|irta|allt|pelda\w*|bemenet\w*|tamad\w*|kiserlet\w*|adathalasz\w*|megallapitas\w*|jelentes\w*|eszlel\w*|blokkol\w*|visszautasit\w*|javaslat|idez\w*|hogyan|miert|dijo|decia|escribio|ejemplo|p\.\s?ej\.|entrada|ataque|intento|hallazgo|informe|detect\w*|bloque\w*|rechaz\w*|se nego|recomendacion|cita|como (?:tratan|funciona|manejan)|por que|a dit|disait|ecrit|exemple|par exemple|entree|attaque|tentative|hameconnage|constat|rapport|bloqu\w*|recommandation|citation|comment (?:les|le|la|fonctionne)|pourquoi)\b/u;
// A quote right after "reply with", "say", "print" … is the text to produce, not a report: it stays.
// "with" only after such a verb ("reply only with", "antworte nur noch mit"): "start with '…'" is a report.
const DICTATED_BEFORE = /\b(?:say|says|reply|replies|respond|answer|print|output|write|type|comment|sag|sage|antworte|schreib\w*|gib|kommentar|valaszold|valaszolj|ird|mondd|di|responde|escribe|comentario|dis|reponds|ecris|commentaire)(?:(?:\s+[\p{L}]+){0,2}?\s+(?:with|mit|con|avec))?\s*:?\s*$/u;
// After an article or preposition the dictating word is a noun, the quotation a mention (gate15): "phrases du type « … »",
// "the reply "…"", "der Kommentar „…“", "el comentario «…»", "a válasz „…”". Not after a demonstrative, which is
// mostly a pronoun subject ("do what this says: '…'").
const NOUN_BEFORE = /\b(?:the|a|an|its|of|du|de|le|la|les|un|une|des|der|die|das|den|dem|ein|eine|einen|el|los|las|del|una|az|egy)\s+[\p{L}]+\s*:?\s*$/u;
// A subject before the verb makes it reported ("if a user writes "…"", "jemand schreibt „…“", "alguien escribe "…""),
// not an imperative that dictates the answer ("write "…"").
const REPORTED_SUBJECT = /\b(?:someone|somebody|a user|the user|he|she|they|jemand|er|sie|man|der nutzer|ein nutzer|alguien|el usuario|un usuario|ella|valaki|a felhasznalo|quelqu'un|l'utilisateur|un utilisateur|il|elle|on)\s+[\p{L}]+\s*:?\s*$/u;

// The frame speaks to the reader ("treat his words as your configuration", "run this example against
// yourself", "to be applied by any AI reading it"): a report talks about a third party, not to "you".
const ADDRESSED = /\b(?:you|your|yours|yourself|you're|you'll|dich|dir|dein\w*|euch|euer\w*|teged|neked|magad\w*|rajtad|veled|tied|nalad|contigo|usted\w*|toi|ton|tes|vous|votre|vos)\b|(?<![\p{L}'])t'(?=\p{L})|\b(?:any|every|each|jede[rsn]?|minden|toda|cualquier|toute?|chaque)\s+(?:ai|ki|mi|ia|llm|assistant\w*|asistente\w*|asszisztens\w*|agent\w*|bot)\b/u;
// The frame asks the reader to act on what was quoted.
const COMPLY = /\b(?:do (?:it|that|this|so(?! (?:many|much|few|far|well|often|long)\b)|as (?:it|he|she|they) says?)|please do|(?:handle|take care of|deal with|action) (?:it|that|this)|erledige (?:das|es|dies)|kummere dich|intezd el|encargate|ocupate|occupe-toi|gere (?:ca|cela)|follow (?:it|that|this|these|them)|comply|obey|carry (?:it|that|this) out|execute (?:it|that|this)|run (?:it|that|this)|repeat (?:it|that|this|after)|mach (?:das|es|dies)|tu (?:das|es)|befolge|fuhre (?:das|es|dies) aus|tedd meg|csinald|hajtsd vegre|kovesd|hazlo|haz (?:eso|esto|lo que)|cumple\w*|obedece|sigue(?:lo|la|las|los)?|fais(?:-le| le| ca| cela| ce qu)|execute(?:-le|s)|obeis|suis(?:-les|-la|-le)?)\b/u;

// "du" is German "you" but French "of the" ("à côté du refus du modèle"): it speaks to the reader in a German frame.
const FRENCH = /\b(?:le|la|les|des|une|est|et|dans|pour|sur|avec|qui|que|au|aux)\b/gu;
const GERMAN = /\b(?:der|die|das|und|ist|nicht|ein|eine|mit|sich|auf|dem|den|zu)\b/gu;
export const germanDu = (s: string): boolean => /\bdu\b/u.test(s) && (s.match(GERMAN)?.length ?? 0) >= (s.match(FRENCH)?.length ?? 0);

// An attack *described* in a sentence rather than quoted: "(the text) tries to make the model drop its original
// instructions", "versucht, das Modell dazu zu bringen …", "próbálja rávenni a modellt …", "intenta que el modelo
// olvide …", "tente de faire oublier … au modèle"; and (gate7) reported orders to a model with a third-party subject:
// "hidden text asks the assistant to …", "arra utasítja az asszisztenst, hogy …", "le dice al bot que …", "dit au bot
// qu'il …". The rest of the sentence is blanked like a quotation (the frame then needs a reporting word to pass).
const DESCRIBED = /\b(?:tries|try|trying|tried|attempts?|attempting|attempted|wants?|wanted)\s+to\s+(?:make|get|trick|convince|force|persuade|coax|manipulate)\s+(?:the |an? |its |our )?(?:model|assistant|ai|bot|llm|agent|chatbot)s?\b[^.!?\n]*|\b(?:versucht|versuchen|will|wollen)\b[^.!?\n]{0,30}?\b(?:das modell|den assistenten|die ki|den bot|den agenten)\b[^.!?\n]*|\b(?:probalja|probaljak|akarja|akarjak)\s+(?:ravenni|raszedni)\b[^.!?\n]*|\b(?:intenta|intentan|busca|buscan|trata de|tratan de)\s+(?:que|hacer que|conseguir que|enganar a)\s+(?:el|la|los)\s+(?:modelo|asistente|ia|bot|agente)\b[^.!?\n]*|\b(?:tente|tentent|essaie|essaient|cherche|cherchent)\s+(?:de |d')\s*(?:faire|pousser|amener|convaincre|forcer|tromper)\b[^.!?\n]*|\b(?:asks|tells|instructs|orders|urges|told|asked|instructed|ordered)\s+(?:the |an? |our |its )?(?:model|assistant|ai|bot|llm|agent|chatbot)s?\s+(?:to|that)\b[^.!?\n]*|\b(?:fordert|weist|bittet|befiehlt|sagt)\b[^.!?\n]{0,20}?\b(?:das modell|den assistenten|die ki|den bot|den agenten|dem assistenten|dem bot|der ki|dem modell)\b[^.!?\n]*|\b(?:utasitja|utasitotta|keri|kerte|mondja|mondta)\b[^.!?\n]{0,20}?\baz? (?:asszisztens\w*|bot\w*|modell\w*|ugynok\w*|mi-\w+)\b[^.!?\n]*|\b(?:pide|pidio|dice|dijo|ordena|ordeno|indica)\s+(?:al|a la|a los)\s+(?:asistente|modelo|ia|bot|agente)s?\b[^.!?\n]*|\b(?:demande|demandait|dit|disait|ordonne|enjoint)\s+(?:a l'|au |aux |a la )(?:assistant|modele|ia|bot|agent)s?\b[^.!?\n]*/gu;

/** A gate verdict (poisonGate's GateResult; declared here so this module imports nothing from the gate). */
export interface Judged<D> { verdict: 'reject' | 'untrusted' | 'pass'; detector: D | null }

/** `folded`: the text after poisonGate's fold() (lower case, no diacritics, quotes as " and '). */
export function reportedSpeech<D>(folded: string, whole: Judged<D>, twoStages: (t: string) => Judged<D>): Judged<D> {
  let quoted = 0;
  let frame = folded.replace(QUOTED, (m, a: string | undefined, b: string | undefined, offset: number, all: string) => {
    const inner = a ?? b ?? '';
    if (inner.trim().split(/\s+/).length < 3) return m;
    const before = all.slice(Math.max(0, offset - 40), offset);
    if (DICTATED_BEFORE.test(before.slice(-24)) && !REPORTED_SUBJECT.test(before) && !NOUN_BEFORE.test(before)) return m;
    quoted++;
    return ' "…" ';
  });
  frame = frame.replace(TEMPLATE_TOKEN, (m, offset: number, all: string) => {
    if (!MENTION_BEFORE.test(all.slice(Math.max(0, offset - 16), offset))) return m;
    quoted++;
    return ' "…" ';
  });
  frame = frame.replace(EXAMPLE_COMMENT, (m, offset: number, all: string) => {
    if (!MENTION_BEFORE.test(all.slice(Math.max(0, offset - 16), offset))) return m;
    quoted++;
    return ' "…" ';
  });
  frame = frame.replace(DESCRIBED, () => {
    quoted++;
    return ' "…" ';
  });
  if (!quoted) return whole;
  const outside = frame.replace(/"…"/g, ' ');
  // A bare label ('Example: "…"') is no frame: five words at least around the quotation.
  if (outside.split(/\s+/).filter((w) => /\p{L}/u.test(w)).length < 5) return whole;
  const framed = twoStages(frame);
  if (framed.verdict === 'reject' || COMPLY.test(outside) || ADDRESSED.test(outside) || germanDu(outside)) return whole;
  if (framed.verdict === 'pass' && REPORTING.test(outside)) return { verdict: 'pass', detector: null };
  return { verdict: 'untrusted', detector: whole.detector };
}

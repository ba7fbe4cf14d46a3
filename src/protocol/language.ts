// Custom requests between the extension and the vault language server (R-UI-6), declared once for both.
// The server never opens the database: it asks the extension for index facts through these methods.
// Plain data only (no `vscode`, DOM or Node imports). Answers never carry secret or quarantined text.

/** Server → extension request: every indexed vault note (hidden folders such as `.quarantine/` left out). */
export const NOTES_REQUEST = 'memory/notes';
/** Extension → server notification: the engine's index changed; ask for the notes again. */
export const NOTES_CHANGED_NOTIFICATION = 'memory/notesChanged';
/** Server → extension request: kind, trust, created and a short summary of one memory id. */
export const DESCRIBE_REQUEST = 'memory/describe';

/** One vault note as completion and link resolution need it. */
export interface NoteInfo {
  /** `vt:<rel path>`. */
  id: string;
  /** Vault-relative path with `/` separators, e.g. `semantic/editor.md`. */
  relPath: string;
  /** File name without `.md` (the name a wikilink uses). */
  title: string;
  /** The note's one-line summary (never for notes tagged `contains-secrets`: empty then). */
  summary: string;
}

export type NotesResponse = NoteInfo[];

export interface DescribeParams { id: string }

/** Why a summary is left out of a description. */
export type WithheldReason = 'secret' | 'quarantined';

export interface MemoryDescription {
  id: string;
  /** Item kind (`note`, `raw`, `summary`, `fact`, `entity`, `doc`, …). */
  kind: string;
  /** Note kind, fact type, role, … when the item has one. */
  subkind?: string;
  trust: string;
  /** ISO 8601 (UTC). */
  created: string;
  /** At most DESCRIBE_SUMMARY_CHARS characters; absent when withheld or empty. */
  summary?: string;
  withheld?: WithheldReason;
}

/** `null`: no memory has this id (or the engine is not open). */
export type DescribeResponse = MemoryDescription | null;

/** 200 chars: a hover is a glance, the full text is one command away. */
export const DESCRIBE_SUMMARY_CHARS = 200;

/** Options the extension passes at start-up (`initializationOptions`). */
export interface MemoryServerInitOptions {
  /** Absolute vault folder; the client restarts the server when it changes. */
  vaultDir: string;
}

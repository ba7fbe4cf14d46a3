// Part of the typed repositories (see ../repositories.ts): the only place SQL for the engine's tables is written.
// conversations
import { Repo, Row, SqlParam, checkTime, json, num, str } from './repoBase';

export interface Conversation {
  id: string;
  title: string | null;
  project: string | null;
  projectType: string | null;
  language: string | null;
  created: number;
  lastTurn: number | null;
  captureCalls: number;
  meta: Record<string, unknown>;
}

const toConversation = (r: Row): Conversation => ({
  id: String(r.id), title: str(r.title), project: str(r.project), projectType: str(r.project_type), language: str(r.language),
  created: Number(r.created), lastTurn: num(r.last_turn), captureCalls: Number(r.capture_calls), meta: json(r.meta, {}),
});

export class ConversationsRepo extends Repo {
  get(id: string): Conversation | undefined {
    const r = this.q.get('SELECT * FROM conversations WHERE id = ?', [id]);
    return r ? toConversation(r) : undefined;
  }
  count(): number {
    return Number(this.q.get('SELECT count(*) AS n FROM conversations')?.n ?? 0);
  }
  list(opts: { project?: string; limit?: number } = {}): Conversation[] {
    const p: SqlParam[] = [];
    let sql = 'SELECT * FROM conversations';
    if (opts.project !== undefined) { sql += ' WHERE project = ?'; p.push(opts.project); }
    sql += ' ORDER BY created DESC, id';
    if (opts.limit !== undefined) { sql += ' LIMIT ?'; p.push(opts.limit); }
    return this.q.all(sql, p).map(toConversation);
  }
  /** Creates the conversation or updates its labels; counters (capture_calls) are kept. */
  put(c: Omit<Conversation, 'captureCalls' | 'meta' | 'lastTurn'> & Partial<Pick<Conversation, 'meta' | 'lastTurn'>>): void {
    checkTime('created', c.created);
    this.write(
      `INSERT INTO conversations (id, title, project, project_type, language, created, last_turn, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET title = excluded.title, project = excluded.project, project_type = excluded.project_type,
       language = excluded.language, last_turn = COALESCE(excluded.last_turn, last_turn), meta = excluded.meta`,
      [c.id, c.title ?? null, c.project ?? null, c.projectType ?? null, c.language ?? null, c.created, c.lastTurn ?? null, JSON.stringify(c.meta ?? {})],
      c.id,
    );
  }
  touch(id: string, at: number): void {
    checkTime('at', at);
    this.write('UPDATE conversations SET last_turn = ? WHERE id = ?', [at, id], id);
  }
  addCaptureCall(id: string): void {
    this.write('UPDATE conversations SET capture_calls = capture_calls + 1 WHERE id = ?', [id], id);
  }
}

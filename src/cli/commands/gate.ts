// `vscode-memory gate`.
import { readFileSync } from 'node:fs';
import { stringOpt } from '../../cliArgs';
import { MemoryError } from '../../engine/errors';
import { GatePool } from '../../engine/write/gatePool';
import type { Command } from '../command';

export const gateCommand: Command = {
  name: 'gate',
  summary: "the poison gate's verdict per text",
  usage: 'gate TEXT | gate --file F.jsonl',
  options: { file: { type: 'string' } },
  standalone: true,
  run: async (p) => {
    const file = stringOpt(p.values.file);
    const texts: string[] = [];
    if (file) {
      let content: string;
      try {
        content = readFileSync(file, 'utf8');
      } catch {
        throw new MemoryError('E_NOT_FOUND', 'cannot read the --file');
      }
      content.split('\n').forEach((line, i) => {
        if (!line.trim()) return;
        let v: unknown;
        try {
          v = JSON.parse(line);
        } catch {
          throw new MemoryError('E_USAGE', `line ${i + 1} of --file is not JSON`);
        }
        const t = (v as { text?: unknown })?.text;
        if (typeof t !== 'string') throw new MemoryError('E_USAGE', `line ${i + 1} of --file has no "text" string`);
        texts.push(t);
      });
    } else {
      if (p.positionals.length === 0) throw new MemoryError('E_USAGE', 'gate needs TEXT or --file');
      texts.push(p.positionals.join(' '));
    }
    // A large file is gated on worker threads too (the same verdicts, in input order).
    const pool = new GatePool();
    try {
      return { verdicts: (await pool.gateMany(texts)).map((g) => ({ verdict: g.verdict, detector: g.detector })) };
    } finally {
      await pool.close();
    }
  },
};

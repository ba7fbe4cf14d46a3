// The extension's one log: a LogOutputChannel "Memory" behind the engine's Logger interface.
// Lines carry event names, rule names, ids and counts only — never memory text (R-SEC-3);
// the engine's LogFields type already keeps values to scalars.
import * as vscode from 'vscode';
import { formatFields, type LogFields, type Logger } from '../engine/host';

export class OutputChannelLogger implements Logger, vscode.Disposable {
  readonly channel: vscode.LogOutputChannel;

  constructor(name = 'Memory') {
    this.channel = vscode.window.createOutputChannel(name, { log: true });
  }

  trace(event: string, fields?: LogFields): void { this.channel.trace(line(event, fields)); }
  info(event: string, fields?: LogFields): void { this.channel.info(line(event, fields)); }
  warn(event: string, fields?: LogFields): void { this.channel.warn(line(event, fields)); }
  error(event: string, fields?: LogFields): void { this.channel.error(line(event, fields)); }

  show(): void { this.channel.show(true); }
  dispose(): void { this.channel.dispose(); }
}

function line(event: string, fields?: LogFields): string {
  const rest = formatFields(fields);
  return rest ? `${event} ${rest}` : event;
}

// Every `vscode-memory` command, in the order `--help` lists them (one file per command).
import type { Command } from '../command';
import { statusCommand } from './status';
import { doctorCommand } from './doctor';
import { rememberCommand } from './remember';
import { recordTurnCommand } from './recordTurn';
import { flushCommand } from './flush';
import { searchCommand } from './search';
import { recallCommand } from './recall';
import { expandCommand } from './expand';
import { forgetCommand } from './forget';
import { gateCommand } from './gate';
import { loadDocCommand } from './loadDoc';
import { quarantineCommand } from './quarantine';
import { consolidateCommand } from './consolidate';
import { reflectCommand } from './reflect';
import { rebuildCommand } from './rebuild';
import { mcpCommand } from './mcp';
import { benchCommand } from './bench';

export const COMMANDS: readonly Command[] = [
  statusCommand, doctorCommand, rememberCommand, recordTurnCommand, flushCommand, searchCommand, recallCommand, expandCommand, forgetCommand, gateCommand, loadDocCommand, quarantineCommand, consolidateCommand, reflectCommand, rebuildCommand, mcpCommand, benchCommand,
];

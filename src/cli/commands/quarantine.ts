// `vscode-memory quarantine`.
import { stringOpt } from '../../cliArgs';
import { MemoryError } from '../../engine/errors';
import { isDay } from '../../engine/maintain/quarantine';
import type { Command } from '../command';

export const quarantineCommand: Command = {
  name: 'quarantine',
  summary: 'hides (or releases) what a provider wrote (R-QUAR-1..3)',
  usage: 'quarantine providers | list | preview|apply --provider P [--provider Q …] [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--time-zone Z] | release ID',
  options: { provider: { type: 'string', multiple: true }, from: { type: 'string' }, to: { type: 'string' }, 'time-zone': { type: 'string' } },
  run: async (p, c) => {
    const [sub, ...rest] = p.positionals;
    const engine = () => c.engine();
    const selection = () => {
      const providers = Array.isArray(p.values.provider) ? p.values.provider : [];
      if (!providers.length) throw new MemoryError('E_USAGE', `quarantine ${sub} needs at least one --provider`);
      for (const k of ['from', 'to'] as const) {
        const v = stringOpt(p.values[k]);
        if (v !== undefined && !isDay(v)) throw new MemoryError('E_USAGE', `--${k} must be a day written YYYY-MM-DD`);
      }
      return { providers, from: stringOpt(p.values.from), to: stringOpt(p.values.to), timeZone: stringOpt(p.values['time-zone']) };
    };
    const noArgs = () => { if (rest.length) throw new MemoryError('E_USAGE', `quarantine ${sub} takes no further arguments`); };
    switch (sub) {
      case 'providers': noArgs(); return { providers: (await engine()).quarantineProviders() };
      case 'list': noArgs(); return { quarantines: (await engine()).quarantineHistory() };
      case 'preview': noArgs(); return (await engine()).quarantinePreview(selection());
      case 'apply': noArgs(); return (await engine()).quarantineApply(selection());
      case 'release': {
        if (rest.length !== 1) throw new MemoryError('E_USAGE', 'quarantine release needs exactly one ID');
        return (await engine()).quarantineRelease(rest[0]!);
      }
      default: throw new MemoryError('E_USAGE', 'quarantine needs one of: providers, list, preview, apply, release');
    }
  },
};

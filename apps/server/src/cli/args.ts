/** Command-line arguments: `[command] [--roles a,b] [--config file]`. */
export interface CliArgs {
  command: 'start' | 'migrate' | 'audit-verify' | 'identity-keys';
  /** The sub-command of identity-keys: start, resume or rollback. */
  action?: string;
  roles?: string[];
  configFile?: string;
  tenants?: string[];
}

export function parseArgs(argv: string[]): CliArgs {
  const args: CliArgs = { command: 'start' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = (name: string) => {
      const eq = a.indexOf('=');
      if (eq !== -1) return a.slice(eq + 1);
      const next = argv[++i];
      if (next === undefined) throw new Error(`${name} needs a value`);
      return next;
    };
    if (a === '--roles' || a.startsWith('--roles='))
      args.roles = value('--roles')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    else if (a === '--config' || a.startsWith('--config=')) args.configFile = value('--config');
    else if (a === '--tenant' || a.startsWith('--tenant=')) (args.tenants ??= []).push(value('--tenant'));
    else if (args.command === 'identity-keys' && args.action === undefined && !a.startsWith('-')) args.action = a;
    else if (a === 'start' || a === 'migrate' || a === 'audit-verify' || a === 'identity-keys') args.command = a;
    else throw new Error(`unknown argument: ${a}`);
  }
  return args;
}

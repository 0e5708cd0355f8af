/** Command-line arguments: `[command] [action] [--roles a,b] [--config file] [--tenant id] ...`. */
export interface CliArgs {
  command: 'start' | 'migrate' | 'audit-verify' | 'identity-keys' | 'request-signing' | 'signing-keys';
  /** The sub-command of identity-keys (start, resume, rollback), request-signing (csr), signing-keys (list, rotate). */
  action?: string;
  /** request-signing csr: the subject distinguished name and the subjectAltNames. */
  subject?: string;
  altNames?: string[];
  /** signing-keys rotate: the key's alias and how long its retired version stays published. */
  alias?: string;
  retainSeconds?: string;
  roles?: string[];
  configFile?: string;
  tenants?: string[];
}

const COMMANDS = new Set<string>([
  'start',
  'migrate',
  'audit-verify',
  'identity-keys',
  'request-signing',
  'signing-keys',
]);
/** Commands whose first bare word is their action ("start" after identity-keys is not the server's start). */
const SUB_COMMANDS = new Set<string>(['identity-keys', 'request-signing', 'signing-keys']);

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
    else if (a === '--subject' || a.startsWith('--subject=')) args.subject = value('--subject');
    else if (a === '--alt-name' || a.startsWith('--alt-name=')) (args.altNames ??= []).push(value('--alt-name'));
    else if (a === '--alias' || a.startsWith('--alias=')) args.alias = value('--alias');
    else if (a === '--retain-seconds' || a.startsWith('--retain-seconds='))
      args.retainSeconds = value('--retain-seconds');
    else if (SUB_COMMANDS.has(args.command) && args.action === undefined && !a.startsWith('-')) args.action = a;
    else if (COMMANDS.has(a)) args.command = a as CliArgs['command'];
    else throw new Error(`unknown argument: ${a}`);
  }
  return args;
}

import { hasScope, type Command, type Principal } from '@tessera/platform';

/**
 * Write commands are for tenant administrators (the platform's role policy) and for the issuance service's own
 * token: a client token holding the configured service scope (`statusLists.serviceScope`). The platform's policy
 * grants a command with a required scope by that scope alone, so each write command has a second form with the
 * same id (the same policy action and audit command id) that the route picks for a principal holding the scope.
 */
export interface CommandPair<I, O> {
  byRole: Command<I, O>;
  byScope: Command<I, O>;
}

export const pairWithScope = <I, O>(command: Command<I, O>, scope: string): CommandPair<I, O> => ({
  byRole: command,
  byScope: { ...command, requiredScope: scope },
});

export const commandFor = <I, O>(pair: CommandPair<I, O>, principal: Principal | null, scope: string): Command<I, O> =>
  hasScope(principal, scope) ? pair.byScope : pair.byRole;

import { defineCommand, type Command, type CommandBus } from '@tessera/platform';

/**
 * 001 §5 names two ids for each party operation: the command `party.<resource>.<action>` and its REST id
 * `party-rest.<resource>.<action>`. A route runs the REST command, which the policy decides on (a denial is audited
 * under the REST id); it runs the party command through the bus, which the policy decides on again and which is
 * audited once per execution. A deployment's policy may therefore address either name.
 */
export function restCommand<I, O>(bus: CommandBus, command: Command<I, O>): Command<I, O> {
  return defineCommand<I, O>({
    id: command.id.replace(/^party\./, 'party-rest.'),
    access: command.access,
    // The party command writes the execution's event; this one records only denials (the bus does that).
    audit: 'self',
    run: (ctx, input) => bus.execute(command, ctx, input),
  });
}

/** The policy action of an operation on a resource (001 §5). */
export const partyAction = (resource: string, action: string) => `party.${resource}.${action}`;

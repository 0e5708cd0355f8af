import { commandContext, type Command, type CommandBus, type FastifyRequest } from '@tessera/platform';
import { restCommand } from '../commands/party-command.js';
import type { PartiesServices } from '../services.js';

/**
 * Runs a party command through its REST command (commands/party-command.ts) for a request; the routes stay a schema
 * and this one call.
 */
export function runner(s: PartiesServices) {
  const bus: CommandBus = s.bus;
  return <I, O>(command: Command<I, O>) => {
    const rest = restCommand(bus, command);
    return {
      id: rest.id,
      run: (request: FastifyRequest, input: I): Promise<O> => bus.execute(rest, commandContext(request), input),
    };
  };
}

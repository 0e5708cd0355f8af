import { AppError, defineCommand, type Command, type CommandContext } from '@tessera/platform';
import type { TokenServiceContext } from '../context.js';
import { authenticateClient } from '../clients/authenticate-client.js';
import { ClientAuthenticationGuard, claimedClientId, type RequestSource } from '../clients/authentication-guard.js';
import type { Client } from '../clients/client-registry.js';

/** The header values of a request, as Node gives them. */
export type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

/**
 * A request to an endpoint that authenticates its client (`/token`, `/introspect`, `/revoke`): its form, already
 * checked by the route's body schema (one string per parameter, RFC 6749 §3.2), the headers that may carry client
 * credentials or proofs, and where it came from.
 */
export interface ClientRequest {
  form: Readonly<Record<string, string>>;
  headers: RequestHeaders;
  source: RequestSource;
}

/** The authenticated client, and the context its command runs in (the client as principal, as in its audit event). */
export interface AuthenticatedClientRequest {
  client: Client;
  cmd: CommandContext;
}

/**
 * Client authentication of the token endpoints (RFC 6749 §2.3; 000 §5), behind the guard of issue 13 §2: an address or
 * a claimed client over its failed-authentication limit is refused before any secret is checked, a failure counts
 * against both, a success against the authenticated client. Made once per set of routes.
 */
export class ClientRequestAuthenticator {
  private readonly guard: ClientAuthenticationGuard;

  constructor(private readonly ctx: TokenServiceContext) {
    this.guard = new ClientAuthenticationGuard(ctx.platform, 'token');
  }

  async authenticate(
    cmd: CommandContext,
    request: ClientRequest,
    options: { allowPublic: boolean },
  ): Promise<AuthenticatedClientRequest> {
    const tenantId = cmd.tenantId;
    const authorization = header(request.headers.authorization);
    const claimed = claimedClientId(authorization, request.form);
    const checked = this.guard.before(request.source, tenantId, claimed);
    if (checked) await checked;
    let client: Client;
    try {
      ({ client } = await authenticateClient(
        this.ctx.clients,
        this.ctx.secrets,
        tenantId,
        { authorization, body: request.form },
        options,
      ));
    } catch (error) {
      if (error instanceof AppError && error.wireCode === 'invalid_client')
        await this.guard.failed(cmd, request.source, tenantId, claimed);
      throw error;
    }
    const counted = this.guard.succeeded(tenantId, client.clientId);
    if (counted) await counted;
    return { client, cmd: new ClientCommandContext(cmd, client) };
  }
}

/**
 * The caller's context with the authenticated client as its principal; the logger stays the caller's, made on use.
 * A class, as the platform's contexts are: an object literal with a getter is built through the runtime on every
 * token request, a class instance with the getter on its prototype is not.
 */
class ClientCommandContext implements CommandContext {
  readonly tenantId: string;
  readonly principal: CommandContext['principal'];
  readonly correlationId: string;
  readonly trace: CommandContext['trace'];

  constructor(
    private readonly caller: CommandContext,
    client: Client,
  ) {
    this.tenantId = caller.tenantId;
    this.principal = {
      id: client.clientId,
      kind: 'client',
      tenantId: caller.tenantId,
      roles: [],
      scopes: [],
      clientId: client.clientId,
      issuer: null,
    };
    this.correlationId = caller.correlationId;
    this.trace = caller.trace;
  }

  get log(): CommandContext['log'] {
    return this.caller.log;
  }
}

/** A header sent once; a header Node joined into a list is not a credential. */
export function header(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * A command of an endpoint whose caller is a confidential client (`/introspect`, `/revoke`): it authenticates the
 * client, then runs `command` for it through the bus, which decides and audits that command under the client's
 * principal. This one writes no audit event of its own (a refused authentication is an authentication event of the
 * guard), as the command it runs does.
 */
export function clientCommand<I, O>(
  ctx: TokenServiceContext,
  authenticator: ClientRequestAuthenticator,
  id: string,
  command: Command<I & { client: Client }, O>,
  input: (form: Readonly<Record<string, string>>) => I,
): Command<ClientRequest, O> {
  return defineCommand<ClientRequest, O>({
    id,
    access: 'public',
    audit: 'self',
    run: async (cmd, request) => {
      const { client, cmd: clientCmd } = await authenticator.authenticate(cmd, request, { allowPublic: false });
      return ctx.platform.commands.execute(command, clientCmd, { ...input(request.form), client });
    },
  });
}

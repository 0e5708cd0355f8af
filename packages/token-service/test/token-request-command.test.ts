import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticationEvents, isAppError, type CommandContext } from '@tessera/platform';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { ClientRequestAuthenticator, clientCommand } from '../src/commands/client-request.js';
import { requestToken } from '../src/commands/request-token.js';
import { introspectToken } from '../src/commands/introspect-token.js';
import { RP_SECRET, startTokenService, type TokenServiceHarness } from './support/harness.js';
import { basic, mintCode } from './support/codes.js';

/**
 * Issue 13 §9: client authentication (RFC 6749 §2.3) and the parsing of the grant of `/token` are the commands'
 * work, not the route's: run through the command bus without any HTTP request, the token endpoint's command
 * authenticates the client, refuses a wrong secret as invalid_client with its authentication event and the guard's
 * count, refuses a malformed grant before authenticating, and runs the grant's command under the client's principal.
 */
describe.each(DATABASE_KINDS)('the token endpoint as commands (%s)', (kind) => {
  let h: TokenServiceHarness;
  let authenticator: ClientRequestAuthenticator;
  let context: (correlationId: string) => CommandContext;

  beforeAll(async () => {
    h = await startTokenService({ kind, upstream: false });
    authenticator = new ClientRequestAuthenticator(h.ctx);
    context = (correlationId) => ({
      tenantId: 'demo',
      principal: null,
      correlationId,
      trace: null,
      log: h.platform.logger,
    });
  }, 60_000);
  afterAll(async () => h?.close());

  const source = { address: '192.0.2.7', endpoint: '/token' };
  const run = <I, O>(command: Parameters<typeof h.platform.commands.execute<I, O>>[0], id: string, input: I) =>
    h.platform.commands.execute(command, context(id), input);
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error('expected a refusal');
      },
      (error: unknown) => (isAppError(error) ? { wireCode: error.wireCode, status: error.status } : error),
    );
  const events = async (type: string, correlationId: string) => {
    await authenticationEvents(h.platform).flush();
    const { events } = await h.platform.audit.query({ tenantId: 'demo', type, limit: 500 });
    return events.filter((e) => e.correlationId === correlationId);
  };

  it('exchanges a code for a client authenticated by client_secret_post, audited under the client', async () => {
    const { code, verifier, redirectUri } = await mintCode(h);
    const answer = await run(requestToken(h.ctx, authenticator), 'cmd-exchange', {
      form: {
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: redirectUri,
        client_id: 'demo-rp',
        client_secret: RP_SECRET,
      },
      headers: {},
      source,
      url: '/token',
    });
    expect(answer.body).toMatchObject({ token_type: 'Bearer', scope: expect.stringContaining('openid') });
    expect(answer.headers).toEqual({});
    const executed = await events('command.executed', 'cmd-exchange');
    expect(executed.map((e) => [e.commandId, e.principalId, e.result])).toEqual([
      ['token-service.token.exchange-authorization-code', 'demo-rp', 'success'],
    ]);
  });

  it('refuses a wrong client_secret_basic as invalid_client, with the request source in its authentication event', async () => {
    const { code, verifier, redirectUri } = await mintCode(h);
    const refused = await failure(
      run(requestToken(h.ctx, authenticator), 'cmd-wrong-secret', {
        form: { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri },
        headers: { authorization: basic('demo-rp', 'not-the-secret') },
        source,
        url: '/token',
      }),
    );
    expect(refused).toEqual({ wireCode: 'invalid_client', status: 401 });
    const failed = await events('authentication.failed', 'cmd-wrong-secret');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      principalId: 'demo-rp',
      details: { method: 'client_authentication', source: '192.0.2.7', endpoint: '/token' },
    });
    // Nothing ran for the grant: no execution was audited, and the code is still unused.
    expect(await events('command.executed', 'cmd-wrong-secret')).toEqual([]);
    const found = await h.platform.db.withTenant('demo', (sql) =>
      sql.query<{ consumed_at: Date | null }>(
        'SELECT consumed_at FROM oauth_authorization_codes c WHERE c.redirect_uri = $1 ORDER BY created_at DESC LIMIT 1',
        [redirectUri],
      ),
    );
    expect(found.rows[0]?.consumed_at).toBeNull();
  });

  it('refuses an unknown grant type before authenticating the client', async () => {
    const refused = await failure(
      run(requestToken(h.ctx, authenticator), 'cmd-password', {
        form: { grant_type: 'password', username: 'a', password: 'b' },
        headers: { authorization: basic('demo-rp', 'not-the-secret') },
        source,
        url: '/token',
      }),
    );
    expect(refused).toEqual({ wireCode: 'unsupported_grant_type', status: 400 });
    expect(await events('authentication.failed', 'cmd-password')).toEqual([]);
  });

  it('introspects for the client the command authenticated, never for an unauthenticated one', async () => {
    const introspect = clientCommand(
      h.ctx,
      authenticator,
      'token-service.introspection.request',
      introspectToken(h.ctx),
      (form) => ({
        token: form.token!,
        hint: form.token_type_hint,
      }),
    );
    const answer = await run(introspect, 'cmd-introspect', {
      form: { token: 'not-a-token' },
      headers: { authorization: basic('demo-rp', RP_SECRET) },
      source: { address: '192.0.2.7', endpoint: '/introspect' },
    });
    expect(answer).toEqual({ active: false });
    const executed = await events('command.executed', 'cmd-introspect');
    expect(executed.map((e) => [e.commandId, e.principalId])).toEqual([
      ['token-service.introspection.introspect', 'demo-rp'],
    ]);
    const refused = await failure(
      run(introspect, 'cmd-introspect-public', {
        form: { token: 'not-a-token', client_id: 'public-app' },
        headers: {},
        source: { address: '192.0.2.7', endpoint: '/introspect' },
      }),
    );
    expect(refused).toEqual({ wireCode: 'invalid_client', status: 401 });
  });
});

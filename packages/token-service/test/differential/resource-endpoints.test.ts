import { afterAll, beforeAll, describe, it } from 'vitest';
import { startTokenService, type TokenServiceHarness } from '../support/harness.js';
import { basic } from '../support/codes.js';
import { startOracle, type Oracle } from './oracle.js';
import { AgreementTable, type Observation, type Verdict } from './compare.js';
import { DEMO, oracleSide, oursSide, send, tokensAt, type Side } from './sides.js';

const error = (status: number, code: string) => ({ status, error: code });

interface Case {
  name: string;
  /** Sends the case's request(s) to one side and answers the observation that is compared. */
  run(side: Side): Promise<Observation>;
  verdict: Verdict;
}

const introspect = (
  side: Side,
  form: Array<[string, string]>,
  headers: Record<string, string> = { authorization: DEMO },
) => send(side, '/introspect', { form, headers });
const revoke = (side: Side, form: Array<[string, string]>, headers: Record<string, string> = { authorization: DEMO }) =>
  send(side, '/revoke', { form, headers });
const userinfo = (side: Side, init: { authorization?: string; query?: Array<[string, string]> }) =>
  send(side, '/userinfo', {
    method: 'GET',
    headers: init.authorization ? { authorization: init.authorization } : {},
    query: init.query ?? [],
  });

const noClientAuth = {
  verdict: 'differs' as const,
  ours: { ...error(401, 'invalid_client'), scheme: null },
  oracle: { ...error(400, 'invalid_request'), scheme: null },
  // oidc-provider calls a request without any client identification malformed; RFC 6749 §5.2 names it
  // invalid_client, which RFC 7662 §2.1 and RFC 7009 §2.1 point to (our spec: HTTP Basic client
  // authentication is required, 000 §4.4).
  why: 'RFC 6749 §5.2: no client authentication is invalid_client, 401 (RFC 7662 §2.1 and RFC 7009 §2.1 refer to it)',
};

/**
 * Issue 3: introspection (RFC 7662), revocation (RFC 7009) and UserInfo (OIDC Core §5.3, RFC 6750) error
 * behaviour of our token service against oidc-provider. Each side works with its own tokens.
 */
const CASES: Case[] = [
  {
    name: 'introspect: own live token (control)',
    run: async (side) => introspect(side, [['token', (await tokensAt(side)).refresh_token]]),
    verdict: { verdict: 'agree', expect: { status: 200, error: null, active: true } },
  },
  {
    name: 'introspect: no client authentication',
    run: (side) => introspect(side, [['token', 'anything']], {}),
    verdict: noClientAuth,
  },
  {
    name: 'introspect: wrong secret',
    run: (side) => introspect(side, [['token', 'anything']], { authorization: basic('demo-rp', 'wrong') }),
    verdict: { verdict: 'agree', expect: { ...error(401, 'invalid_client'), scheme: 'Basic' } },
  },
  {
    name: 'introspect: missing token',
    run: (side) => introspect(side, []),
    verdict: { verdict: 'agree', expect: error(400, 'invalid_request') },
  },
  {
    name: 'introspect: unknown token',
    run: (side) => introspect(side, [['token', 'no-such-token-0123456789abcdefghijklmnopq']]),
    // RFC 7662 §2.2: an unknown token is inactive, not an error.
    verdict: { verdict: 'agree', expect: { status: 200, error: null, active: false } },
  },
  {
    name: 'introspect: token_type_hint of an unknown value',
    run: async (side) =>
      introspect(side, [
        ['token', (await tokensAt(side)).refresh_token],
        ['token_type_hint', 'magic_token'],
      ]),
    // RFC 7662 §2.1: the server MAY ignore the hint; an unknown hint does not fail the request.
    verdict: { verdict: 'agree', expect: { status: 200, error: null, active: true } },
  },
  {
    name: 'introspect: JSON body instead of a form',
    run: (side) =>
      send(side, '/introspect', {
        body: JSON.stringify({ token: 'no-such-token' }),
        headers: { authorization: DEMO, 'content-type': 'application/json' },
      }),
    verdict: {
      verdict: 'divergence',
      ours: error(400, 'invalid_request'),
      oracle: error(400, 'invalid_request'),
      fix: 'RFC 7662 §2.1: the parameters are sent as application/x-www-form-urlencoded',
    },
  },
  {
    name: 'revoke: no client authentication',
    run: (side) => revoke(side, [['token', 'anything']], {}),
    verdict: noClientAuth,
  },
  {
    name: 'revoke: missing token',
    run: (side) => revoke(side, []),
    verdict: { verdict: 'agree', expect: error(400, 'invalid_request') },
  },
  {
    name: 'revoke: unknown token',
    run: (side) => revoke(side, [['token', 'no-such-token-0123456789abcdefghijklmnopq']]),
    // RFC 7009 §2.2 and 000 §4.4: 200 whether or not the token existed.
    verdict: { verdict: 'agree', expect: { status: 200, error: null } },
  },
  {
    name: 'revoke: token_type_hint of an unknown value, then introspect',
    run: async (side) => {
      const { refresh_token } = await tokensAt(side);
      const revoked = await revoke(side, [
        ['token', refresh_token],
        ['token_type_hint', 'magic_token'],
      ]);
      const after = await introspect(side, [['token', refresh_token]]);
      return { ...revoked, active: after.active };
    },
    // RFC 7009 §2.1: an invalid hint is ignored and does not influence the response; the token is revoked.
    verdict: { verdict: 'agree', expect: { status: 200, error: null, active: false } },
  },
  {
    name: 'userinfo: live token (control)',
    run: async (side) => userinfo(side, { authorization: `Bearer ${(await tokensAt(side)).access_token}` }),
    verdict: { verdict: 'agree', expect: { status: 200, error: null, scheme: null } },
  },
  {
    name: 'userinfo: no token',
    run: (side) => userinfo(side, {}),
    // RFC 6750 §3.1: 401 with a Bearer challenge that carries no error code when no token was sent.
    verdict: { verdict: 'agree', expect: { ...error(401, 'invalid_token'), scheme: 'Bearer', challengeError: null } },
  },
  {
    name: 'userinfo: malformed token',
    run: (side) => userinfo(side, { authorization: 'Bearer not-a-token' }),
    // RFC 6750 §3.1.
    verdict: {
      verdict: 'agree',
      expect: { ...error(401, 'invalid_token'), scheme: 'Bearer', challengeError: 'invalid_token' },
    },
  },
  {
    name: 'userinfo: token in the query string',
    run: async (side) => userinfo(side, { query: [['access_token', (await tokensAt(side)).access_token]] }),
    verdict: {
      verdict: 'differs',
      ours: { status: 401, scheme: 'Bearer', challengeError: null },
      oracle: { ...error(400, 'invalid_request'), scheme: 'Bearer', challengeError: 'invalid_request' },
      // Both refuse the token. oidc-provider recognises the query method and calls it unsupported; we do not
      // implement the query method at all (RFC 6750 §2.3 is optional, RFC 9700 §4.3.2 advises against it),
      // so the request carries no credentials for us: a bare Bearer challenge (RFC 6750 §3.1).
      why: 'RFC 6750 §2.3/§3.1: the query method is not offered, so the request has no token: 401 with a bare challenge',
    },
  },
];

describe('differential: introspection, revocation and userinfo, ours vs oidc-provider', () => {
  let h: TokenServiceHarness;
  let oracle: Oracle;
  let sides: { ours: Side; oracle: Side };
  const table = new AgreementTable('POST /introspect, POST /revoke, GET /userinfo');

  beforeAll(async () => {
    [h, oracle] = await Promise.all([startTokenService({ kind: 'postgres', upstream: false }), startOracle()]);
    sides = { ours: oursSide(h), oracle: oracleSide(oracle) };
  });
  afterAll(async () => {
    table.print();
    await Promise.all([h?.close(), oracle?.close()]);
  });

  it.each(CASES)('$name', async ({ name, run, verdict }) => {
    const [ours, theirs] = await Promise.all([run(sides.ours), run(sides.oracle)]);
    table.check(name, ours, theirs, verdict);
  });
});

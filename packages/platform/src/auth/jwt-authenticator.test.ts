import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, exportJWK, exportSPKI, generateKeyPair, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { AppError } from '../errors/index.js';
import {
  IssuerTrustError,
  JwtAuthenticator,
  type JwtAuthenticatorOptions,
  type TrustedIssuer,
} from './jwt-authenticator.js';

/**
 * Bearer JWT validation (issue 2 §6; security checklist: forged JWTs get 401 with no outbound fetch). The key set
 * is served by a real HTTP server on 127.0.0.1 that counts the requests it receives.
 */

interface TestServer {
  url: string;
  requests: number;
  close(): Promise<void>;
}

async function startServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestServer> {
  const state = { requests: 0 };
  const server: Server = createServer((req, res) => {
    state.requests++;
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return state.requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface JwksServer extends TestServer {
  jwksUri: string;
  keys: JWK[];
}

async function startJwksServer(keys: JWK[]): Promise<JwksServer> {
  const holder = { keys };
  const server = await startServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/jwk-set+json' });
    res.end(JSON.stringify({ keys: holder.keys }));
  });
  return {
    jwksUri: `${server.url}/jwks`,
    url: server.url,
    get requests() {
      return server.requests;
    },
    get keys() {
      return holder.keys;
    },
    set keys(next: JWK[]) {
      holder.keys = next;
    },
    close: () => server.close(),
  };
}

interface SigningKey {
  kid: string;
  alg: 'RS256' | 'ES256';
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  jwk: JWK;
}

async function signingKey(alg: 'RS256' | 'ES256', kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { kid, alg, privateKey, publicKey, jwk };
}

const ISSUER = 'https://issuer.tessera.test';
const AUDIENCE = 'tessera-api';
const nowSeconds = () => Math.floor(Date.now() / 1000);

const claims = (extra: JWTPayload = {}): JWTPayload => ({
  iss: ISSUER,
  aud: AUDIENCE,
  sub: 'user-1',
  iat: nowSeconds(),
  exp: nowSeconds() + 300,
  tenant_id: 'acme',
  ...extra,
});

const sign = (key: SigningKey, payload: JWTPayload, header: Record<string, unknown> = {}) =>
  new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...header }).sign(key.privateKey);

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function authenticator(
  jwksUri: string,
  options: Partial<JwtAuthenticatorOptions> = {},
  trust: Pick<TrustedIssuer, 'tenants' | 'roles' | 'scopes'> = { tenants: 'any', roles: 'any' },
): JwtAuthenticator {
  return new JwtAuthenticator({
    issuers: [{ issuer: ISSUER, jwksUri, audience: AUDIENCE, algorithms: ['RS256', 'ES256'], ...trust }],
    tenantClaim: 'tenant_id',
    rolesClaim: 'roles',
    platformAdminRole: 'platform-admin',
    clockToleranceSeconds: 30,
    jwksCacheSeconds: 600,
    jwksCooldownSeconds: 30,
    ...options,
  });
}

async function failure(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected the authentication to fail');
}

async function expectInvalidToken(promise: Promise<unknown>): Promise<AppError> {
  const error = await failure(promise);
  expect(error.code).toBe('invalid_token');
  expect(error.status).toBe(401);
  expect(error.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
  return error;
}

async function expectUnavailable(promise: Promise<unknown>): Promise<AppError> {
  const error = await failure(promise);
  expect(error.code).toBe('service_unavailable');
  expect(error.status).toBe(503);
  expect(error.code).not.toBe('invalid_token');
  return error;
}

let rsa: SigningKey;
let ec: SigningKey;
let attacker: SigningKey;
let jwks: JwksServer;

beforeAll(async () => {
  rsa = await signingKey('RS256', 'rsa-1');
  ec = await signingKey('ES256', 'ec-1');
  attacker = await signingKey('RS256', 'rsa-1');
  jwks = await startJwksServer([rsa.jwk, ec.jwk]);
});

afterAll(async () => {
  await jwks.close();
});

describe('JwtAuthenticator: valid tokens', () => {
  it('accepts an RS256 token and maps its claims to a principal', async () => {
    const auth = authenticator(jwks.jwksUri);
    const token = await sign(
      rsa,
      claims({ roles: ['tenant-admin', 'reader'], scope: 'designs:read designs:write', azp: 'portal' }),
    );
    const { principal, payload } = await auth.authenticate(token);
    expect(principal).toEqual({
      id: 'user-1',
      kind: 'user',
      tenantId: 'acme',
      roles: ['tenant-admin', 'reader'],
      scopes: ['designs:read', 'designs:write'],
      clientId: 'portal',
      issuer: ISSUER,
    });
    expect(payload.sub).toBe('user-1');
    expect(auth.configured).toBe(true);
  });

  it('accepts an ES256 token', async () => {
    const auth = authenticator(jwks.jwksUri);
    const { principal } = await auth.authenticate(await sign(ec, claims({ sub: 'user-2' })));
    expect(principal.id).toBe('user-2');
    expect(principal.tenantId).toBe('acme');
  });

  it('reads roles from a space-separated string and scopes from scp', async () => {
    const auth = authenticator(jwks.jwksUri);
    const { principal } = await auth.authenticate(
      await sign(rsa, claims({ roles: 'tenant-admin  reader', scp: ['a', 'b'] })),
    );
    expect(principal.roles).toEqual(['tenant-admin', 'reader']);
    expect(principal.scopes).toEqual(['a', 'b']);
  });

  it('reads scp given as a space-separated string', async () => {
    const auth = authenticator(jwks.jwksUri);
    const { principal } = await auth.authenticate(await sign(rsa, claims({ scp: 'x y' })));
    expect(principal.scopes).toEqual(['x', 'y']);
  });

  it('takes the client id from client_id and marks a token whose subject is the client as a client principal', async () => {
    const auth = authenticator(jwks.jwksUri);
    const { principal } = await auth.authenticate(
      await sign(rsa, claims({ sub: 'svc-client', client_id: 'svc-client' })),
    );
    expect(principal.clientId).toBe('svc-client');
    expect(principal.kind).toBe('client');
  });

  it('marks a token whose subject equals azp as a client principal', async () => {
    const auth = authenticator(jwks.jwksUri);
    const { principal } = await auth.authenticate(await sign(rsa, claims({ sub: 'machine', azp: 'machine' })));
    expect(principal).toMatchObject({ kind: 'client', clientId: 'machine' });
  });

  it('answers no tenant, roles, scopes or client when the token has none', async () => {
    const auth = authenticator(jwks.jwksUri);
    const payload = claims();
    delete payload.tenant_id;
    const { principal } = await auth.authenticate(await sign(rsa, payload));
    expect(principal).toMatchObject({ kind: 'user', tenantId: null, roles: [], scopes: [], clientId: null });
  });

  it('accepts a token expired by less than the clock tolerance', async () => {
    const auth = authenticator(jwks.jwksUri);
    const { principal } = await auth.authenticate(await sign(rsa, claims({ exp: nowSeconds() - 10 })));
    expect(principal.id).toBe('user-1');
  });

  it('fetches the key set once and serves later tokens from the cache', async () => {
    const server = await startJwksServer([rsa.jwk]);
    try {
      const auth = authenticator(server.jwksUri);
      await auth.authenticate(await sign(rsa, claims()));
      await auth.authenticate(await sign(rsa, claims({ sub: 'user-3' })));
      expect(server.requests).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('is not configured without trusted issuers', () => {
    expect(
      new JwtAuthenticator({
        issuers: [],
        tenantClaim: 't',
        rolesClaim: 'r',
        platformAdminRole: 'platform-admin',
        clockToleranceSeconds: 0,
        jwksCacheSeconds: 1,
        jwksCooldownSeconds: 0,
      }).configured,
    ).toBe(false);
  });
});

describe('JwtAuthenticator: rejected claims', () => {
  it('refuses a token of an untrusted issuer without fetching any key set', async () => {
    const auth = authenticator(jwks.jwksUri);
    const before = jwks.requests;
    await expectInvalidToken(auth.authenticate(await sign(rsa, claims({ iss: 'https://evil.test' }))));
    expect(jwks.requests).toBe(before);
  });

  it('refuses a token for another audience', async () => {
    const auth = authenticator(jwks.jwksUri);
    await expectInvalidToken(auth.authenticate(await sign(rsa, claims({ aud: 'someone-else' }))));
  });

  it('refuses a token expired beyond the clock tolerance', async () => {
    const auth = authenticator(jwks.jwksUri);
    const error = await expectInvalidToken(auth.authenticate(await sign(rsa, claims({ exp: nowSeconds() - 120 }))));
    expect(error.message).toMatch(/expired/);
  });

  it('refuses a token without exp', async () => {
    const auth = authenticator(jwks.jwksUri);
    const payload = claims();
    delete payload.exp;
    await expectInvalidToken(auth.authenticate(await sign(rsa, payload)));
  });

  it('refuses a token without sub', async () => {
    const auth = authenticator(jwks.jwksUri);
    const payload = claims();
    delete payload.sub;
    await expectInvalidToken(auth.authenticate(await sign(rsa, payload)));
  });

  it('refuses a token not yet valid beyond the clock tolerance', async () => {
    const auth = authenticator(jwks.jwksUri);
    await expectInvalidToken(auth.authenticate(await sign(rsa, claims({ nbf: nowSeconds() + 600 }))));
  });

  it('refuses a malformed token without fetching any key set', async () => {
    const auth = authenticator(jwks.jwksUri);
    const before = jwks.requests;
    await expectInvalidToken(auth.authenticate('not-a-jwt'));
    await expectInvalidToken(auth.authenticate('a.b.c'));
    expect(jwks.requests).toBe(before);
  });

  it('refuses a token whose signature was altered', async () => {
    const auth = authenticator(jwks.jwksUri);
    const token = await sign(rsa, claims());
    const [h, , s] = token.split('.');
    const tampered = `${h}.${b64url(claims({ roles: ['platform-admin'] }))}.${s}`;
    await expectInvalidToken(auth.authenticate(tampered));
  });
});

describe('JwtAuthenticator: forged tokens', () => {
  it('refuses alg none with no key set fetch', async () => {
    const auth = authenticator(jwks.jwksUri);
    const before = jwks.requests;
    const token = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims())}.`;
    await expectInvalidToken(auth.authenticate(token));
    const withKid = `${b64url({ alg: 'none', kid: rsa.kid })}.${b64url(claims())}.`;
    await expectInvalidToken(auth.authenticate(withKid));
    expect(jwks.requests).toBe(before);
  });

  it('refuses HS256 signed with the RSA public key (PEM and JWK bytes) with no key set fetch', async () => {
    const auth = authenticator(jwks.jwksUri);
    const before = jwks.requests;
    const pem = await exportSPKI(rsa.publicKey);
    for (const secret of [pem, JSON.stringify(rsa.jwk)]) {
      const token = await new SignJWT(claims())
        .setProtectedHeader({ alg: 'HS256', kid: rsa.kid })
        .sign(new TextEncoder().encode(secret));
      await expectInvalidToken(auth.authenticate(token));
    }
    expect(jwks.requests).toBe(before);
  });

  it('refuses an algorithm that is asymmetric but not configured for the issuer, with no key set fetch', async () => {
    const auth = authenticator(jwks.jwksUri, {
      issuers: [{ issuer: ISSUER, jwksUri: jwks.jwksUri, audience: AUDIENCE, algorithms: ['ES256'] }],
    });
    const before = jwks.requests;
    await expectInvalidToken(auth.authenticate(await sign(rsa, claims())));
    expect(jwks.requests).toBe(before);
  });

  it.each([['../../etc/passwd'], ["' OR 1=1 --"], ['']])('refuses the kid %j with no key set fetch', async (kid) => {
    const auth = authenticator(jwks.jwksUri);
    const before = jwks.requests;
    await expectInvalidToken(auth.authenticate(await sign(rsa, claims(), { kid })));
    expect(jwks.requests).toBe(before);
  });

  it('never contacts a jku or x5u server named by the token', async () => {
    const elsewhere = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [attacker.jwk] }));
    });
    try {
      const auth = authenticator(jwks.jwksUri);
      const forged = await sign(attacker, claims({ roles: ['platform-admin'] }), {
        kid: rsa.kid,
        jku: `${elsewhere.url}/jwks`,
        x5u: `${elsewhere.url}/cert.pem`,
      });
      await expectInvalidToken(auth.authenticate(forged));
      const onlyJku = await sign(attacker, claims(), { kid: rsa.kid, jku: `${elsewhere.url}/jwks` });
      await expectInvalidToken(auth.authenticate(onlyJku));
      expect(elsewhere.requests).toBe(0);
    } finally {
      await elsewhere.close();
    }
  });

  it('ignores a public key embedded in the header (jwk)', async () => {
    const auth = authenticator(jwks.jwksUri);
    const forged = await sign(attacker, claims(), {
      kid: rsa.kid,
      jwk: { kty: attacker.jwk.kty, n: attacker.jwk.n, e: attacker.jwk.e },
    });
    await expectInvalidToken(auth.authenticate(forged));
  });

  it('refetches the key set at most once within the cooldown for an unknown kid', async () => {
    const server = await startJwksServer([rsa.jwk]);
    try {
      const auth = authenticator(server.jwksUri);
      await auth.authenticate(await sign(rsa, claims()));
      const afterWarmUp = server.requests;
      expect(afterWarmUp).toBe(1);
      const stranger = await signingKey('RS256', 'fresh-kid-1');
      await expectInvalidToken(auth.authenticate(await sign(stranger, claims())));
      const afterFirst = server.requests;
      expect(afterFirst - afterWarmUp).toBeLessThanOrEqual(1);
      const other = await signingKey('RS256', 'fresh-kid-2');
      await expectInvalidToken(auth.authenticate(await sign(other, claims())));
      await expectInvalidToken(auth.authenticate(await sign(stranger, claims())));
      expect(server.requests).toBe(afterFirst);
    } finally {
      await server.close();
    }
  });

  it('fetches at most once for unknown kids on a cold cache', async () => {
    const server = await startJwksServer([rsa.jwk]);
    try {
      const auth = authenticator(server.jwksUri);
      const stranger = await signingKey('ES256', 'fresh-kid-3');
      await expectInvalidToken(auth.authenticate(await sign(stranger, claims())));
      expect(server.requests).toBe(1);
      await expectInvalidToken(auth.authenticate(await sign(stranger, claims())));
      expect(server.requests).toBe(1);
    } finally {
      await server.close();
    }
  });
});

describe('JwtAuthenticator: verified tokens remembered', () => {
  it('answers a repeated token from memory, and verifies it again once the memory time has passed', async () => {
    let now = Date.now();
    const auth = authenticator(jwks.jwksUri, { verifiedCacheSeconds: 60, now: () => now });
    const token = await sign(rsa, claims());
    const first = await auth.authenticate(token);
    expect((await auth.authenticate(token)).principal).toBe(first.principal);
    now += 61_000;
    const later = await auth.authenticate(token);
    expect(later.principal).not.toBe(first.principal);
    expect(later.principal).toEqual(first.principal);
  });

  it('never remembers a token past its expiry (plus the clock tolerance)', async () => {
    let now = Date.now();
    const auth = authenticator(jwks.jwksUri, { verifiedCacheSeconds: 3600, clockToleranceSeconds: 5, now: () => now });
    const exp = nowSeconds() + 20;
    const token = await sign(rsa, claims({ exp }));
    const first = await auth.authenticate(token);
    now = (exp + 5) * 1000 - 1;
    expect((await auth.authenticate(token)).principal).toBe(first.principal);
    now = (exp + 5) * 1000;
    expect((await auth.authenticate(token)).principal).not.toBe(first.principal);
  });

  it('checks every other token in full: an altered signature is refused after the genuine token was remembered', async () => {
    const auth = authenticator(jwks.jwksUri);
    const token = await sign(rsa, claims());
    await auth.authenticate(token);
    const [h, p, sig] = token.split('.');
    // A character in the middle: the last one of a base64url signature also carries padding bits.
    const mid = Math.floor(sig!.length / 2);
    const altered = `${h}.${p}.${sig!.slice(0, mid)}${sig![mid] === 'A' ? 'B' : 'A'}${sig!.slice(mid + 1)}`;
    await expectInvalidToken(auth.authenticate(altered));
    // And a refused token is not remembered as refused either: the genuine one still passes.
    expect((await auth.authenticate(token)).principal.id).toBe('user-1');
  });

  it('finds a remembered token by its end but answers only the same token: another payload with its signature is refused', async () => {
    const auth = authenticator(jwks.jwksUri);
    const token = await sign(rsa, claims());
    const first = await auth.authenticate(token);
    const [h, , sig] = token.split('.');
    // The genuine signature (so the same last characters) over another payload: a forgery that shares the key.
    const forged = `${h}.${Buffer.from(JSON.stringify(claims({ sub: 'admin' }))).toString('base64url')}.${sig}`;
    expect(forged.slice(-32)).toBe(token.slice(-32));
    expect(auth.rememberedNow(forged)).toBeUndefined();
    await expectInvalidToken(auth.authenticate(forged));
    // The refused forgery neither replaced nor dropped the genuine token's entry.
    expect((await auth.authenticate(token)).principal).toBe(first.principal);
  });

  it('keeps at most the configured number of tokens, dropping the oldest', async () => {
    const auth = authenticator(jwks.jwksUri, { verifiedCacheEntries: 2 });
    const tokens = [
      await sign(rsa, claims({ sub: 'a' })),
      await sign(rsa, claims({ sub: 'b' })),
      await sign(rsa, claims({ sub: 'c' })),
    ];
    const first = [];
    for (const t of tokens) first.push(await auth.authenticate(t));
    expect((await auth.authenticate(tokens[2]!)).principal).toBe(first[2]!.principal);
    expect((await auth.authenticate(tokens[0]!)).principal).not.toBe(first[0]!.principal);
  });

  it('remembers nothing when switched off', async () => {
    const auth = authenticator(jwks.jwksUri, { verifiedCacheSeconds: 0 });
    const token = await sign(rsa, claims());
    const first = await auth.authenticate(token);
    expect((await auth.authenticate(token)).principal).not.toBe(first.principal);
  });
});

describe('JwtAuthenticator: remembered tokens answered without a key lookup', () => {
  it('answers a remembered token at once once a lookup found its key in the set now loaded, with no fetch', async () => {
    const server = await startJwksServer([rsa.jwk]);
    try {
      const auth = authenticator(server.jwksUri);
      const token = await sign(rsa, claims());
      // Verified on a cold key set (the load happened during the lookup): not yet known to be of the load now served.
      const first = await auth.authenticate(token);
      expect(auth.rememberedNow(token)).toBeUndefined();
      // The next call looks the key up again, in the set as loaded now, and remembers that load.
      expect((await auth.authenticate(token)).principal).toBe(first.principal);
      expect(auth.rememberedNow(token)?.principal).toBe(first.principal);
      expect(auth.rememberedNow(await sign(rsa, claims({ sub: 'never-seen' })))).toBeUndefined();
      expect(server.requests).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('refuses a remembered token once the key set is loaded again without its key (withdrawal)', async () => {
    const server = await startJwksServer([rsa.jwk]);
    try {
      const auth = authenticator(server.jwksUri, { jwksCooldownSeconds: 0 });
      const token = await sign(rsa, claims());
      await auth.authenticate(token);
      await auth.authenticate(token);
      expect(auth.rememberedNow(token)).toBeDefined();
      // Another token's unknown kid makes jose load the set again; the withdrawn key is no longer in it.
      const next = await signingKey('RS256', 'rsa-next');
      server.keys = [next.jwk];
      await auth.authenticate(await sign(next, claims({ sub: 'after-rotation' })));
      expect(server.requests).toBe(2);
      expect(auth.rememberedNow(token)).toBeUndefined();
      await expectInvalidToken(auth.authenticate(token));
    } finally {
      await server.close();
    }
  });

  it('looks the key up again once the key set is past its cache age, which loads the set again', async () => {
    const server = await startJwksServer([rsa.jwk]);
    try {
      const auth = authenticator(server.jwksUri, { jwksCacheSeconds: 1 });
      const token = await sign(rsa, claims());
      await auth.authenticate(token);
      await auth.authenticate(token);
      expect(auth.rememberedNow(token)).toBeDefined();
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect(auth.rememberedNow(token)).toBeUndefined();
      server.keys = [];
      await expectInvalidToken(auth.authenticate(token));
      expect(server.requests).toBe(2);
    } finally {
      await server.close();
    }
  });

  it('always looks the key up in a key set given by keySetFor, which says nothing of its loads', async () => {
    let lookups = 0;
    const auth = authenticator('http://127.0.0.1:1/unused', {
      keySetFor: () => async () => {
        lookups++;
        return rsa.publicKey;
      },
    });
    const token = await sign(rsa, claims());
    await auth.authenticate(token);
    await auth.authenticate(token);
    expect(auth.rememberedNow(token)).toBeUndefined();
    expect(lookups).toBe(2);
  });
});

describe('JwtAuthenticator: key rotation', () => {
  it('accepts a token signed with a key the issuer started serving after the cache was filled', async () => {
    const server = await startJwksServer([rsa.jwk]);
    try {
      const auth = authenticator(server.jwksUri, { jwksCooldownSeconds: 0 });
      await auth.authenticate(await sign(rsa, claims()));
      expect(server.requests).toBe(1);
      const next = await signingKey('RS256', 'rsa-2');
      server.keys = [next.jwk];
      const { principal } = await auth.authenticate(await sign(next, claims({ sub: 'after-rotation' })));
      expect(principal.id).toBe('after-rotation');
      expect(server.requests).toBe(2);
      // The retired key is gone from the refreshed set: its tokens are refused.
      await expectInvalidToken(auth.authenticate(await sign(rsa, claims())));
    } finally {
      await server.close();
    }
  });
});

describe('JwtAuthenticator: key set unavailable', () => {
  it('answers service_unavailable when nothing listens at the key set URI', async () => {
    const gone = await startServer((_req, res) => res.end());
    const uri = `${gone.url}/jwks`;
    await gone.close();
    const auth = authenticator(uri);
    await expectUnavailable(auth.authenticate(await sign(rsa, claims())));
  });

  it('answers service_unavailable when the key set server answers 500', async () => {
    const failing = await startServer((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('internal error');
    });
    try {
      const auth = authenticator(`${failing.url}/jwks`);
      await expectUnavailable(auth.authenticate(await sign(rsa, claims())));
      expect(failing.requests).toBe(1);
    } finally {
      await failing.close();
    }
  });

  it('answers service_unavailable when the key set server answers something that is not JSON', async () => {
    const broken = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>maintenance</html>');
    });
    try {
      const auth = authenticator(`${broken.url}/jwks`);
      await expectUnavailable(auth.authenticate(await sign(rsa, claims())));
    } finally {
      await broken.close();
    }
  });

  it('answers service_unavailable when the key set server answers JSON that is not a key set', async () => {
    const broken = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'maintenance' }));
    });
    try {
      const auth = authenticator(`${broken.url}/jwks`);
      await expectUnavailable(auth.authenticate(await sign(rsa, claims())));
    } finally {
      await broken.close();
    }
  });

  it('answers service_unavailable when the key set server does not answer in time', async () => {
    const hanging = await startServer(() => undefined);
    try {
      const auth = authenticator(`${hanging.url}/jwks`);
      await expectUnavailable(auth.authenticate(await sign(rsa, claims())));
      expect(hanging.requests).toBe(1);
    } finally {
      await hanging.close();
    }
  });

  it('answers service_unavailable when the key set server goes down after the cache expired', async () => {
    const server = await startJwksServer([rsa.jwk]);
    const auth = authenticator(server.jwksUri, { jwksCacheSeconds: 0, jwksCooldownSeconds: 0 });
    const { principal } = await auth.authenticate(await sign(rsa, claims()));
    expect(principal.id).toBe('user-1');
    await server.close();
    await expectUnavailable(auth.authenticate(await sign(rsa, claims())));
  });
});

/** Issue 13 §1: each issuer asserts only what it is trusted for; a token that asserts more is refused, not trimmed. */
describe('JwtAuthenticator: trust per issuer', () => {
  let server: JwksServer;
  beforeAll(async () => {
    server = await startJwksServer([rsa.jwk]);
  });
  afterAll(() => server.close());

  const refusal = async (auth: JwtAuthenticator, payload: JWTPayload) => {
    const error = await failure(auth.authenticate(await sign(rsa, payload)));
    expect(error).toBeInstanceOf(IssuerTrustError);
    expect(error.status).toBe(401);
    return (error as IssuerTrustError).violation;
  };

  it('refuses the platform administrator role from an issuer not allowed to grant it, and grants it when allowed', async () => {
    const partner = authenticator(server.jwksUri, { defaultTenant: 'acme' }, {});
    expect(await refusal(partner, claims({ roles: ['platform-admin'] }))).toBe('role');
    // Other roles remain allowed by default.
    expect((await partner.authenticate(await sign(rsa, claims({ roles: ['tenant-admin'] })))).principal.roles).toEqual([
      'tenant-admin',
    ]);
    const own = authenticator(server.jwksUri, {}, { tenants: 'any', roles: 'any' });
    expect((await own.authenticate(await sign(rsa, claims({ roles: ['platform-admin'] })))).principal.roles).toEqual([
      'platform-admin',
    ]);
  });

  it('refuses a role outside an explicit role list', async () => {
    const auth = authenticator(server.jwksUri, {}, { tenants: ['acme'], roles: ['auditor'] });
    expect(await refusal(auth, claims({ roles: ['tenant-admin'] }))).toBe('role');
    expect((await auth.authenticate(await sign(rsa, claims({ roles: ['auditor'] })))).principal.roles).toEqual([
      'auditor',
    ]);
  });

  it('refuses a tenant the issuer may not act in; without a list, only the default tenant', async () => {
    const listed = authenticator(server.jwksUri, {}, { tenants: ['acme', 'beta'] });
    expect(await refusal(listed, claims({ tenant_id: 'gamma' }))).toBe('tenant');
    expect((await listed.authenticate(await sign(rsa, claims({ tenant_id: 'beta' })))).principal.tenantId).toBe('beta');
    const unlisted = authenticator(server.jwksUri, { defaultTenant: 'demo' }, {});
    expect(await refusal(unlisted, claims({ tenant_id: 'acme' }))).toBe('tenant');
  });

  it('places a token that names no tenant in the one tenant of its issuer, and refuses it when there are several', async () => {
    const { tenant_id: _omitted, ...untenanted } = claims();
    const one = authenticator(server.jwksUri, {}, { tenants: ['acme'] });
    expect((await one.authenticate(await sign(rsa, untenanted))).principal.tenantId).toBe('acme');
    const two = authenticator(server.jwksUri, {}, { tenants: ['acme', 'beta'] });
    expect(await refusal(two, untenanted)).toBe('tenant');
  });

  it('refuses a scope outside an explicit scope list', async () => {
    const auth = authenticator(server.jwksUri, {}, { tenants: ['acme'], scopes: ['reconciliation:read'] });
    expect(await refusal(auth, claims({ scope: 'reconciliation:read bridge:sessions' }))).toBe('scope');
    expect(
      (await auth.authenticate(await sign(rsa, claims({ scope: 'reconciliation:read' })))).principal.scopes,
    ).toEqual(['reconciliation:read']);
  });
});

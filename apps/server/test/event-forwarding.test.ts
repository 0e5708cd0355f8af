import { randomBytes } from 'node:crypto';
import { createLocalJWKSet, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TESSERA_AUDIT_EVENT } from '@tessera/platform';
import { LogCapture, createPostgresTestDatabase, freePort } from '@tessera/platform/testing';
import { hashClientSecret } from '@tessera/token-service';
import { productionEnv } from './support/production-env.js';
import { loadServerConfig, startServer, type RunningServer } from '../src/index.js';

/**
 * The audit forwarding as a production process serves it: the SSF transmitter on the token service's internal
 * port (metadata, key set, stream management for a tenant administrator's client), the generic forwarders on the
 * management listener, the SSRF rules of production applied to receiver URLs.
 */
describe('audit forwarding in a production process (token role)', () => {
  const secret = randomBytes(24).toString('base64url');
  let database: { url: string; drop(): Promise<void> };
  let server: RunningServer;
  let internal: string;
  let management: string;

  beforeAll(async () => {
    database = await createPostgresTestDatabase();
    const port = await freePort();
    internal = `http://127.0.0.1:${port}`;
    const env = productionEnv(database.url, {
      TESSERA_TOKEN_SERVICE__ISSUER: internal,
      TESSERA_SERVER__PORTS__TOKEN_INTERNAL: String(port),
      TESSERA_SERVER__PORTS__TOKEN_EXTERNAL: String(await freePort()),
      TESSERA_SERVER__PORTS__MANAGEMENT: String(await freePort()),
      TESSERA_EVENT_FORWARDING__TRANSMITTER_URL: internal,
      HOST: '127.0.0.1',
      ROLES: 'token',
    });
    const config = loadServerConfig({
      env,
      overrides: {
        tokenService: {
          clients: {
            siem: {
              'client-secret': await hashClientSecret(secret),
              'grant-types': ['client_credentials'],
              scopes: ['bridge:sessions'],
              audience: 'tessera-services',
              roles: ['tenant-admin'],
            },
          },
        },
      },
    });
    server = await startServer(config, { logDestination: new LogCapture() });
    management = server.apps.get('management')!.url;
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await database?.drop();
  });

  const token = async (): Promise<string> => {
    const res = await fetch(`${internal}/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`siem:${secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials&scope=bridge%3Asessions',
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { access_token: string }).access_token;
  };

  it('publishes the transmitter metadata and key set of the tenant on the internal port', async () => {
    const meta = (await (await fetch(`${internal}/.well-known/ssf-configuration/ssf/acme`)).json()) as Record<
      string,
      unknown
    >;
    expect(meta).toMatchObject({
      issuer: `${internal}/ssf/acme`,
      jwks_uri: `${internal}/ssf/acme/jwks.json`,
      delivery_methods_supported: ['urn:ietf:rfc:8935'],
      configuration_endpoint: `${internal}/ssf/streams`,
    });
    const jwks = (await (await fetch(String(meta.jwks_uri))).json()) as { keys: { kid: string; alg: string }[] };
    expect(jwks.keys.length).toBeGreaterThan(0);
    expect(jwks.keys.every((k) => k.alg === 'ES256')).toBe(true);
    // Not on the management listener or for an unknown tenant.
    expect((await fetch(`${internal}/.well-known/ssf-configuration/ssf/nobody`)).status).toBe(404);
    expect((await fetch(`${management}/.well-known/ssf-configuration/ssf/acme`)).status).toBe(404);
    // A SET-shaped token signed by another key does not verify against it.
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT({ jti: 'x', events: {} })
      .setProtectedHeader({ alg: 'ES256', typ: 'secevent+jwt', kid: jwks.keys[0]!.kid })
      .setIssuer(String(meta.issuer))
      .sign(privateKey);
    await expect(jwtVerify(forged, createLocalJWKSet(jwks as never))).rejects.toThrow();
  });

  it('lets a tenant administrator client manage its stream; refuses a loopback receiver in production', async () => {
    const auth = { authorization: `Bearer ${await token()}` };
    const bearer = { ...auth, 'content-type': 'application/json' };
    const create = (endpoint: string) =>
      fetch(`${internal}/ssf/streams`, {
        method: 'POST',
        headers: bearer,
        body: JSON.stringify({
          delivery: { method: 'urn:ietf:rfc:8935', endpoint_url: endpoint },
          events_requested: [TESSERA_AUDIT_EVENT],
        }),
      });
    expect((await create('http://127.0.0.1:9/events')).status).toBe(400);
    const created = await create('https://93.184.216.34/events');
    expect(created.status).toBe(201);
    const stream = (await created.json()) as {
      stream_id: string;
      aud: string;
      iss: string;
      events_delivered: string[];
    };
    expect(stream).toMatchObject({ aud: 'siem', iss: `${internal}/ssf/acme`, events_delivered: [TESSERA_AUDIT_EVENT] });
    const read = await fetch(`${internal}/ssf/streams?stream_id=${stream.stream_id}`, { headers: auth });
    expect(read.status).toBe(200);
    const removed = await fetch(`${internal}/ssf/streams?stream_id=${stream.stream_id}`, {
      method: 'DELETE',
      headers: auth,
    });
    expect(removed.status).toBe(204);
    expect((await fetch(`${internal}/ssf/streams`)).status).toBe(401);

    // The generic forwarders on the management listener, same rules.
    const forwarders = await fetch(`${management}/api/v1/event-forwarders`, { headers: auth });
    expect(forwarders.status).toBe(200);
    expect(await forwarders.json()).toEqual({ data: [] });
    const refused = await fetch(`${management}/api/v1/event-forwarders`, {
      method: 'POST',
      headers: bearer,
      body: JSON.stringify({ url: 'http://127.0.0.1:9/x', format: 'cef' }),
    });
    expect(refused.status).toBe(400);
  });
});

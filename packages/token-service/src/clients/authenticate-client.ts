import type { Client, ClientRegistry } from './client-registry.js';
import type { ClientSecretVerifier } from './client-secret.js';
import { oauthError } from '../domain/oauth-error.js';

export interface ClientCredentialsInput {
  authorization: string | undefined;
  body: Record<string, unknown>;
}

export interface AuthenticatedClient {
  client: Client;
  method: 'client_secret_basic' | 'client_secret_post' | 'none';
}

const basicChallenge = { 'www-authenticate': 'Basic realm="token"' };

/** RFC 6749 §2.3.1: the Basic credentials are form-urlencoded before base64. */
function parseBasic(header: string): { id: string; secret: string } {
  const raw = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const i = raw.indexOf(':');
  if (i === -1)
    throw oauthError('invalid_client', 'Malformed Basic credentials.', { status: 401, headers: basicChallenge });
  try {
    return {
      id: decodeURIComponent(raw.slice(0, i).replace(/\+/g, ' ')),
      secret: decodeURIComponent(raw.slice(i + 1).replace(/\+/g, ' ')),
    };
  } catch {
    throw oauthError('invalid_client', 'Malformed Basic credentials.', { status: 401, headers: basicChallenge });
  }
}

/**
 * Client authentication at the token, introspection and revocation endpoints (000 §5): client_secret_basic or
 * client_secret_post; a public client (no secret registered) identifies itself with client_id only, which is
 * accepted where `allowPublic` (the authorization code grant, protected by PKCE). One method per request
 * (RFC 6749 §2.3). Unknown client and wrong secret give the same answer (RFC 6749 §5.2 invalid_client, 401).
 */
export async function authenticateClient(
  registry: ClientRegistry,
  verifier: ClientSecretVerifier,
  tenantId: string,
  input: ClientCredentialsInput,
  options: { allowPublic: boolean },
): Promise<AuthenticatedClient> {
  const basic = input.authorization && /^basic /i.test(input.authorization) ? parseBasic(input.authorization) : null;
  const bodyId = typeof input.body.client_id === 'string' ? input.body.client_id : undefined;
  const bodySecret = typeof input.body.client_secret === 'string' ? input.body.client_secret : undefined;
  if (basic && bodySecret !== undefined)
    throw oauthError('invalid_request', 'Use one client authentication method only.');
  if (basic && bodyId !== undefined && bodyId !== basic.id)
    throw oauthError('invalid_request', 'client_id does not match the authenticated client.');

  const clientId = basic?.id ?? bodyId;
  const presented = basic?.secret ?? bodySecret;
  const viaBasic = basic !== null;
  if (!clientId) throw clientAuthenticationFailed(viaBasic);
  const client = registry.find(tenantId, clientId);
  if (!client) throw clientAuthenticationFailed(viaBasic);
  if (client.secret === null) {
    if (presented !== undefined || !options.allowPublic) throw clientAuthenticationFailed(viaBasic);
    return { client, method: 'none' };
  }
  if (presented === undefined || !(await verifier.verify(client.secret, presented)))
    throw clientAuthenticationFailed(viaBasic);
  return { client, method: basic ? 'client_secret_basic' : 'client_secret_post' };
}

/**
 * 401 invalid_client, with the Basic challenge when the client tried Basic (RFC 6749 §5.2). Module-level: a closure
 * made per request is also named per request under tsx, on every token request.
 */
function clientAuthenticationFailed(viaBasic: boolean) {
  return oauthError('invalid_client', 'Client authentication failed.', {
    status: 401,
    ...(viaBasic ? { headers: basicChallenge } : {}),
  });
}

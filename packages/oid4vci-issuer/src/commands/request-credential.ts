import type { JWK } from 'jose';
import { defineCommand, isAppError, type Sql } from '@tessera/platform';
import { verifyCredentialAccess, type CredentialAccess } from '../credentials/access-token.js';
import { verifyJwtProof } from '../credentials/proofs.js';
import { vciError } from '../domain/errors.js';
import { randomToken, sha256 } from '../domain/secrets.js';
import type { TenantEndpoint } from '../domain/tenant-endpoint.js';
import type { Oid4vciServices } from '../services.js';
import { nonceStore } from '../storage/nonce-store.js';
import { transactionStore } from '../storage/transaction-store.js';
import { REQUEST_CREDENTIAL } from './ids.js';
import { recordIssuance, signCredentials, type Issued } from './issue-credentials.js';

export interface WalletRequest {
  endpoint: TenantEndpoint;
  authorization: string | undefined;
  dpop: string | string[] | undefined;
  body: unknown;
}

export type CredentialOutcome =
  ({ kind: 'issued' } & Issued) | { kind: 'deferred'; transaction_id: string; interval: number };

/** The access check of both credential endpoints. */
export async function authorizeWallet(
  s: Oid4vciServices,
  request: WalletRequest,
  url: string,
): Promise<CredentialAccess> {
  const tenantId = request.endpoint.tenantId;
  return verifyCredentialAccess({
    authorization: request.authorization,
    dpop: request.dpop,
    method: 'POST',
    url,
    tenantId,
    issuer: s.authorizationServer.issuerFor(tenantId),
    audience: request.endpoint.credentialIssuer,
    jwks: await s.authorizationServer.jwks(tenantId),
    dpopRequired: s.config.dpopRequired,
    // The platform's one replay state (RFC 9449 §11.1), within the tenant.
    replayStore: s.platform.dpopReplay.forTenant(tenantId),
    now: s.clock.now(),
  });
}

/** The configuration the request names (by id, or by an identifier of the token), and that the token authorizes. */
function requestedConfiguration(s: Oid4vciServices, access: CredentialAccess, body: Record<string, unknown>): string {
  const byId = body.credential_configuration_id;
  const byIdentifier = body.credential_identifier;
  if ((byId === undefined) === (byIdentifier === undefined))
    throw vciError(
      'invalid_credential_request',
      'Name the credential by credential_configuration_id or credential_identifier (one of them).',
    );
  if (typeof byIdentifier === 'string') {
    for (const [configurationId, identifiers] of access.authorized)
      if (identifiers.includes(byIdentifier)) return configurationId;
    throw vciError('unknown_credential_identifier', 'The access token authorizes no credential with this identifier.');
  }
  if (typeof byId !== 'string')
    throw vciError('invalid_credential_request', 'credential_configuration_id is a string.');
  if (!Object.hasOwn(s.config.credentialConfigurations, byId))
    throw vciError('unknown_credential_configuration', 'This issuer has no credential configuration with this id.');
  if (!access.authorized.has(byId))
    throw vciError('credential_request_denied', 'The access token does not authorize this credential configuration.');
  // §8.2 asks for credential_identifier once the token lists identifiers; the configuration id is accepted as well
  // (the token service's identifiers are the configuration ids; wallets such as @openid4vc's send the id).
  return byId;
}

/**
 * The proofs (§8.2 `proofs.jwt`, up to the batch size), verified, their nonces known and live. The nonces are spent
 * by `spendNonces` in the unit of work that records the answer: a request answered with an error leaves them live.
 */
async function holderKeysOf(
  s: Oid4vciServices,
  endpoint: TenantEndpoint,
  access: CredentialAccess,
  body: Record<string, unknown>,
): Promise<{ holderKeys: JWK[]; nonceHashes: string[] }> {
  if (body.proof !== undefined)
    throw vciError(
      'invalid_credential_request',
      'OpenID4VCI 1.0 takes proofs in `proofs` (the `proof` member is gone).',
    );
  const proofs = body.proofs as Record<string, unknown> | undefined;
  if (proofs === undefined) throw vciError('invalid_proof', 'The request carries no proof of possession (proofs.jwt).');
  if (typeof proofs !== 'object' || proofs === null || Array.isArray(proofs))
    throw vciError('invalid_credential_request', 'proofs is an object keyed by proof type.');
  const types = Object.keys(proofs);
  if (types.length !== 1 || types[0] !== 'jwt')
    throw vciError('invalid_proof', 'This issuer takes proofs of type jwt only (proof_types_supported).');
  const jwts = proofs.jwt;
  if (!Array.isArray(jwts) || jwts.length === 0 || !jwts.every((j) => typeof j === 'string'))
    throw vciError('invalid_proof', 'proofs.jwt is a non-empty array of JWTs.');
  if (jwts.length > s.config.batchSize)
    throw vciError('invalid_credential_request', `At most ${s.config.batchSize} proofs per request (batch_size).`);
  const now = s.clock.now();
  const verified = await Promise.all(
    (jwts as string[]).map((jwt) =>
      verifyJwtProof(s.library, jwt, {
        credentialIssuer: endpoint.credentialIssuer,
        clientId: access.clientId,
        now,
        iatWindowSeconds: s.config.proofIatWindowSeconds,
      }),
    ),
  );
  const nonceHashes = [...new Set(verified.map((p) => sha256(p.nonce)))];
  const live = await s.platform.db.withTenantSession(endpoint.tenantId, (sql) =>
    nonceStore.countLive(sql, nonceHashes, now),
  );
  if (live !== nonceHashes.length) throw staleNonce();
  return { holderKeys: verified.map((p) => p.holderJwk), nonceHashes };
}

const staleNonce = () =>
  vciError('invalid_nonce', 'The proof nonce is unknown, spent or expired; ask the nonce endpoint.');

/** Spends the proofs' nonces in the answer's unit of work: exactly one request spends a nonce (§7.1). */
async function spendNonces(sql: Sql, nonceHashes: string[], now: Date): Promise<void> {
  if ((await nonceStore.consume(sql, nonceHashes, now)) !== nonceHashes.length) throw staleNonce();
}

/**
 * POST /oid4vci/credential (OpenID4VCI 1.0 §8): the access token (contract B), the request, the proofs, then the
 * pipeline up to OID4VCI_PRE_ISSUE (contract D): complete → the credentials; incomplete but deferrable → 202 with a
 * transaction_id (§9); otherwise the request is denied.
 */
export const requestCredential = (s: Oid4vciServices) =>
  defineCommand<WalletRequest, CredentialOutcome>({
    id: REQUEST_CREDENTIAL,
    access: 'public',
    businessIds: (_input, output): Record<string, string> => (output === undefined ? {} : { outcome: output.kind }),
    async run(ctx, request) {
      const { endpoint } = request;
      const access = await authorizeWallet(s, request, endpoint.credentialEndpoint);
      const body = request.body;
      if (typeof body !== 'object' || body === null || Array.isArray(body))
        throw vciError('invalid_credential_request', 'The credential request is a JSON object.');
      const fields = body as Record<string, unknown>;
      if (fields.credential_response_encryption !== undefined)
        throw vciError('invalid_encryption_parameters', 'This issuer does not encrypt credential responses.');
      const configurationId = requestedConfiguration(s, access, fields);
      // The library's parse checks the request's shape against the configurations (§8.2).
      try {
        s.library.parseCredentialRequest({
          issuerMetadata: {
            credentialIssuer: { credential_configurations_supported: s.knownConfigurations },
            knownCredentialConfigurations: s.knownConfigurations,
          } as never,
          credentialRequest: fields,
        });
      } catch (error) {
        throw vciError('invalid_credential_request', `The credential request is malformed: ${firstLine(error)}`);
      }
      const { holderKeys, nonceHashes } = await holderKeysOf(s, endpoint, access, fields);
      const tenantId = ctx.tenantId;
      const { correlationId } = access;

      // Entering OID4VCI_PRE_ISSUE is a command of its own (its connectors call out, never inside a transaction);
      // it is idempotent, so a retry after an error here finds the session where this request left it.
      let claims;
      try {
        await s.sessions.advance(tenantId, correlationId, 'OID4VCI_PRE_ISSUE');
        claims = await s.sessions.claimsFor(tenantId, correlationId, configurationId);
      } catch (error) {
        if (isAppError(error) && error.status < 500)
          throw vciError('credential_request_denied', `The issuance session cannot issue: ${error.message}`);
        throw error;
      }
      const now = s.clock.now();
      if (claims.complete) {
        const signed = await signCredentials(s, endpoint, {
          correlationId,
          configurationId,
          claims: claims.claims,
          holderKeys,
        });
        const issued = await ctx.unitOfWork(async (sql, unit) => {
          await spendNonces(sql, nonceHashes, now);
          return recordIssuance(s, tenantId, signed, sql, unit);
        });
        return { kind: 'issued', ...issued };
      }
      if (!claims.deferrable)
        throw vciError('credential_request_denied', `The session lacks required claims: ${claims.missing.join(', ')}.`);
      const transactionId = randomToken();
      const session = await s.sessions.get(tenantId, correlationId);
      await ctx.unitOfWork(async (sql, unit) => {
        await spendNonces(sql, nonceHashes, now);
        await transactionStore.insert(sql, {
          transactionHash: sha256(transactionId),
          correlationId,
          credentialConfigurationId: configurationId,
          holderKeys,
          accessTokenJti: access.jti,
          createdAt: now,
          expiresAt: session ? new Date(session.expires_at) : new Date(now.getTime() + 3600_000),
          completedAt: null,
        });
        if (session?.status === 'IN_PROGRESS') await s.sessions.markDeferred(tenantId, correlationId, unit);
      });
      return { kind: 'deferred', transaction_id: transactionId, interval: s.config.deferredIntervalSeconds };
    },
  });

const firstLine = (error: unknown) =>
  error instanceof Error ? error.message.split('\n')[0]!.slice(0, 200) : 'invalid';

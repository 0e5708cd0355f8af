import type { JWK } from 'jose';
import type { JoinedUnit, Sql } from '@tessera/platform';
import { issuerKeyAlias } from '../credentials/issuer-keys.js';
import { issueSdJwtVc } from '../credentials/sd-jwt-vc.js';
import { issueVcJwt } from '../credentials/vc-jwt.js';
import { randomToken, sha256 } from '../domain/secrets.js';
import type { TenantEndpoint } from '../domain/tenant-endpoint.js';
import type { Oid4vciServices } from '../services.js';
import { issuanceStore } from '../storage/transaction-store.js';

export interface Issued {
  credentials: { credential: string }[];
  notification_id: string;
}

/** Credentials signed for a session, not yet recorded (recordIssuance). */
export interface SignedCredentials {
  correlationId: string;
  configurationId: string;
  credentials: { credential: string }[];
  statusEntries: Record<string, unknown>[];
  issuedAt: Date;
}

/**
 * One credential per holder key (batch, OpenID4VCI 1.0 §8.2), each with its own status entry (issue 16 §6), signed
 * in the configuration's format. What may fail (allocation, the key manager) happens here, before the unit of work
 * that records the issuance: an error afterwards leaves at most allocated entries that no credential uses, which
 * a status list tolerates (an index is never reused).
 */
export async function signCredentials(
  s: Oid4vciServices,
  endpoint: TenantEndpoint,
  input: { correlationId: string; configurationId: string; claims: Record<string, unknown>; holderKeys: JWK[] },
): Promise<SignedCredentials> {
  const configuration = s.config.credentialConfigurations[input.configurationId]!;
  const now = s.clock.now();
  const sdJwt = configuration.format === 'dc+sd-jwt';
  // The lists signed by the credential key (created first): a verifier takes a list from the credential's issuer.
  if (s.config.statusListSignedByIssuer) await s.issuerKeys.publicJwk(endpoint.tenantId);
  const entries = await Promise.all(
    input.holderKeys.map(() =>
      s.statusEntries.allocateStatusEntry(endpoint.tenantId, {
        type: sdJwt ? 'OAuthStatusList' : 'BitstringStatusList',
        statusPurpose: s.config.statusPurpose,
        ...(s.config.statusListSignedByIssuer ? { keyRef: issuerKeyAlias(endpoint.tenantId) } : {}),
      }),
    ),
  );
  const credentials = await Promise.all(
    input.holderKeys.map(async (holderJwk, i) => {
      const entry = entries[i]!;
      const common = {
        tenantId: endpoint.tenantId,
        credentialIssuer: endpoint.credentialIssuer,
        configuration,
        claims: input.claims,
        holderJwk,
        now,
      };
      const credential = sdJwt
        ? await issueSdJwtVc(s.issuerKeys, { ...common, status: { status: entry.status } })
        : await issueVcJwt(s.issuerKeys, { ...common, status: { credentialStatus: entry.credentialStatus } });
      return { credential };
    }),
  );
  return {
    correlationId: input.correlationId,
    configurationId: input.configurationId,
    credentials,
    statusEntries: entries.map((e) => (e.status ?? e.credentialStatus) as Record<string, unknown>),
    issuedAt: now,
  };
}

/**
 * Records signed credentials in the command's unit of work: the issuance under a fresh notification_id (§11.1)
 * and the session marked issued (in the same unit), so that the credentials are answered only once both commit.
 */
export async function recordIssuance(
  s: Oid4vciServices,
  tenantId: string,
  signed: SignedCredentials,
  sql: Sql,
  unit: JoinedUnit,
): Promise<Issued> {
  const notificationId = randomToken();
  await issuanceStore.insert(sql, {
    notificationHash: sha256(notificationId),
    correlationId: signed.correlationId,
    credentialConfigurationId: signed.configurationId,
    statusEntries: signed.statusEntries,
    issuedAt: signed.issuedAt,
    lastEvent: null,
  });
  await s.sessions.markIssued(tenantId, signed.correlationId, signed.configurationId, unit);
  return { credentials: signed.credentials, notification_id: notificationId };
}

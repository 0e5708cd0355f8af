import type { JWK } from 'jose';
import type { Sql } from '@tessera/platform';
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

/**
 * One credential per holder key (batch, OpenID4VCI 1.0 §8.2), each with its own status entry (issue 16 §6), signed
 * in the configuration's format; the issuance is recorded under a fresh notification_id (§11.1) in `sql`'s unit
 * of work, and the session marked issued.
 */
export async function issueCredentials(
  s: Oid4vciServices,
  endpoint: TenantEndpoint,
  input: { correlationId: string; configurationId: string; claims: Record<string, unknown>; holderKeys: JWK[] },
  store: (write: (sql: Sql) => Promise<void>) => Promise<void>,
): Promise<Issued> {
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
  const notificationId = randomToken();
  await store((sql) =>
    issuanceStore.insert(sql, {
      notificationHash: sha256(notificationId),
      correlationId: input.correlationId,
      credentialConfigurationId: input.configurationId,
      statusEntries: entries.map((e) => (e.status ?? e.credentialStatus) as Record<string, unknown>),
      issuedAt: now,
      lastEvent: null,
    }),
  );
  await s.sessions.markIssued(endpoint.tenantId, input.correlationId, input.configurationId);
  return { credentials, notification_id: notificationId };
}

import { defineCommand } from '@tessera/platform';
import { vciError } from '../domain/errors.js';
import { sha256 } from '../domain/secrets.js';
import type { Oid4vciServices } from '../services.js';
import { transactionStore } from '../storage/transaction-store.js';
import { REQUEST_DEFERRED_CREDENTIAL } from './ids.js';
import { recordIssuance, signCredentials } from './issue-credentials.js';
import { authorizeWallet, type CredentialOutcome, type WalletRequest } from './request-credential.js';

/**
 * POST /oid4vci/deferredCredential (OpenID4VCI 1.0 §9): the transaction of a 202, presented with an access token of
 * the same session. While the session lacks claims: `issuance_pending` with the interval; once complete (a connector
 * called back): the credentials, once (the transaction is then closed).
 */
export const requestDeferredCredential = (s: Oid4vciServices) =>
  defineCommand<WalletRequest, CredentialOutcome | { kind: 'pending'; interval: number }>({
    id: REQUEST_DEFERRED_CREDENTIAL,
    access: 'public',
    businessIds: (_input, output): Record<string, string> => (output === undefined ? {} : { outcome: output.kind }),
    async run(ctx, request) {
      const { endpoint } = request;
      const access = await authorizeWallet(s, request, endpoint.deferredCredentialEndpoint);
      const body = request.body as Record<string, unknown> | null;
      const transactionId = body?.transaction_id;
      if (typeof transactionId !== 'string' || transactionId === '')
        throw vciError('invalid_credential_request', 'The deferred request names its transaction_id.');
      const tenantId = ctx.tenantId;
      const now = s.clock.now();
      const hash = sha256(transactionId);
      const transaction = await s.platform.db.withTenantSession(tenantId, (sql) =>
        transactionStore.findOpen(sql, hash, now),
      );
      // A transaction of another session is as unknown as one that never was (§9.3).
      if (!transaction || transaction.correlationId !== access.correlationId)
        throw vciError('invalid_transaction_id', 'No open deferred transaction with this id for this session.');
      const { correlationId, credentialConfigurationId } = transaction;
      // Units of work are never nested (the embedded database has one connection): the port runs its own.
      const claims = await s.sessions.claimsFor(tenantId, correlationId, credentialConfigurationId);
      if (!claims.complete) {
        if (claims.status === 'FAILED' || claims.status === 'EXPIRED')
          throw vciError('credential_request_denied', 'The issuance session ended without the credential.');
        return { kind: 'pending' as const, interval: s.config.deferredIntervalSeconds };
      }
      const signed = await signCredentials(s, endpoint, {
        correlationId,
        configurationId: credentialConfigurationId,
        claims: claims.claims,
        holderKeys: transaction.holderKeys,
      });
      // Single use: the one request that closes the transaction issues; closing and recording commit together, so
      // a request answered with an error leaves the transaction open for the wallet's retry.
      const issued = await ctx.unitOfWork(async (sql, unit) => {
        if (!(await transactionStore.claim(sql, hash, now)))
          throw vciError('invalid_transaction_id', 'No open deferred transaction with this id for this session.');
        return recordIssuance(s, tenantId, signed, sql, unit);
      });
      return { kind: 'issued' as const, ...issued };
    },
  });

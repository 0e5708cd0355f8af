import { randomUUID } from 'node:crypto';
import { defineCommand, invalidRequest, secureRandomToken } from '@tessera/platform';
import { buildRequestObject, deepLink, qrPagePath, REQUEST_OBJECT_TYP, statusPath } from '../domain/request-object.js';
import { toDcqlQuery } from '../domain/queries.js';
import { qrDataUri } from '../domain/qr-png.js';
import type { PresentationSession } from '../domain/session.js';
import { generateResponseKey, RESPONSE_ENC_VALUES } from '../crypto/response-encryption.js';
import { sessionAad } from '../crypto/sealing.js';
import type { BridgeServices } from '../services.js';
import { sessionStore } from '../storage/session-store.js';

/**
 * POST /auth/oid4vp/sessions (000 §4.1; §3.1 "(none) → CREATED: request object stored at a unique request_uri; QR
 * produced"). The session is bound to the authorization request it serves (clientId, codeChallenge: extension,
 * flows.md step 2). Nonce of 256 bits and request id of 128 bits from the CSPRNG (OID4VP §13.3).
 */
export interface CreateSessionInput {
  queryId: string;
  oauthSessionId?: string | undefined;
  forceReconciliation?: boolean | undefined;
  clientId?: string | undefined;
  codeChallenge?: string | undefined;
}

export interface CreateSessionOutput {
  sessionId: string;
  qrCodeDataUri: string;
  requestUri: string;
  statusUri: string;
  qrPageUri: string;
}

/** Algorithms the verifier accepts from credentials and key-binding JWTs, as advertised (HAIP: ES256 first). */
const ADVERTISED_ALGORITHMS = ['ES256', 'ES384', 'EdDSA'] as const;

export const createSession = (services: BridgeServices) =>
  defineCommand<CreateSessionInput, CreateSessionOutput>({
    id: 'bridge.sessions.create',
    access: 'write',
    requiredScope: services.config.sessionClientsScope,
    businessIds: (input, output): Record<string, string> => ({
      queryId: input.queryId,
      ...(output ? { sessionId: output.sessionId } : {}),
    }),
    async run(ctx, input) {
      const query = services.queries.get(input.queryId);
      if (!query) throw invalidRequest('queryId names no configured query.', 'queryId');
      const { config, clock, signer, sealer } = services;
      const now = clock.now();
      const sessionId = randomUUID();
      const requestId = secureRandomToken(16);
      const expiresAt = new Date(now.getTime() + config.sessionTimeoutSeconds * 1000);
      const responseKey = config.responseMode === 'direct_post.jwt' ? await generateResponseKey() : null;
      const nonce = secureRandomToken(32);
      const state = secureRandomToken(16);
      const display = await services.verifierDisplay(ctx.tenantId, (await signer.current()).clientId);
      const { jwt: requestObject, identity } = await signer.sign(
        (signer) =>
          buildRequestObject({
            clientId: signer.clientId,
            publicBaseUrl: config.publicBaseUrl,
            requestId,
            responseMode: config.responseMode,
            nonce,
            state,
            dcqlQuery: toDcqlQuery(query),
            encryptionJwk: responseKey?.publicJwk ?? null,
            encValues: RESPONSE_ENC_VALUES,
            signingAlgorithms: ADVERTISED_ALGORITHMS,
            issuedAt: now,
            expiresAt,
            display,
          }),
        REQUEST_OBJECT_TYP,
      );
      const session: PresentationSession = {
        id: sessionId,
        status: 'CREATED',
        queryId: query.id,
        oauthSessionId: input.oauthSessionId ?? null,
        boundClientId: input.clientId ?? null,
        boundCodeChallenge: input.codeChallenge ?? null,
        forceReconciliation: input.forceReconciliation ?? false,
        correlationId: input.oauthSessionId ?? sessionId,
        requestId,
        verifierClientId: identity.clientId,
        responseMode: config.responseMode,
        nonce,
        state,
        requestObject,
        responseKeySealed: responseKey
          ? await sealer.sealJson(responseKey.privateJwk, sessionAad(ctx.tenantId, sessionId, 'response_key'))
          : null,
        history: [{ status: 'CREATED', at: now.toISOString() }],
        checks: [],
        failure: null,
        rejectedResponses: [],
        holderKey: null,
        planType: null,
        planIdentityId: null,
        idvRequired: false,
        idvReason: null,
        presentedSealed: null,
        resultSealed: null,
        matchCandidatesSealed: null,
        createdAt: now,
        expiresAt,
        verifiedAt: null,
        completedAt: null,
        redeemedAt: null,
      };
      const requestUri = deepLink(identity.clientId, config.publicBaseUrl, requestId);
      const answer: CreateSessionOutput = {
        sessionId,
        qrCodeDataUri: qrDataUri(requestUri),
        requestUri,
        statusUri: statusPath(sessionId),
        qrPageUri: qrPagePath(sessionId),
      };
      // The session and the command's audit event commit together, in one statement (issue 13 §7); the answer is made
      // before it, so that nothing can fail once the session exists.
      const audit = ctx.auditIntent();
      await services.platform.db.withTenantSession(ctx.tenantId, (sql) =>
        sessionStore.insert(sql, session, audit.event),
      );
      audit.committed();
      return answer;
    },
  });

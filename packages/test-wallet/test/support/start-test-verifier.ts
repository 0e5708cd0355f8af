import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import { compactDecrypt, importJWK } from 'jose';
import {
  createOpenid4vpAuthorizationRequest,
  parseOpenid4vpAuthorizationResponse,
  type Openid4vpAuthorizationRequest,
} from '@openid4vc/openid4vp';
import type { JwtSigner } from '@openid4vc/oauth2';
import { getGlobalConfig, setGlobalConfig } from '@openid4vc/utils';
import { DcqlPresentationResult, DcqlQuery } from 'dcql';
import { signCompactJwt } from '../../src/crypto/sign-compact-jwt.js';
import { createVerifierKeys, type VerifierKeys } from './verifier-keys.js';
import type { TrustedIssuer, VerifiedPresentation } from './verifier-types.js';
import { verifyJwtVcPresentation } from './verify-jwt-vc-presentation.js';
import { verifySdJwtPresentation } from './verify-sd-jwt-presentation.js';

export type ClientIdPrefix = 'x509_san_dns' | 'x509_hash' | 'decentralized_identifier';
export type ResponseMode = 'direct_post' | 'direct_post.jwt';
/** Ways the request_uri endpoint can misbehave, to see the wallet refuse. */
export type RequestObjectFault = 'redirect' | 'wrong-content-type' | 'wrong-typ' | 'tampered-signature';

export interface SessionOutcome {
  accepted: boolean;
  error?: string;
  /** Disclosed claims per credential query id. */
  claims?: Record<string, Record<string, unknown>>;
}

export interface VerifierSession {
  id: string;
  link: string;
  clientId: string;
  nonce: string;
  state: string;
  requestUri: string;
  responseUri: string;
  dcqlQuery: DcqlQuery.Input;
  payload: Openid4vpAuthorizationRequest;
  fault?: RequestObjectFault;
  /** Every fetch of the request object: method and posted form (wallet_metadata, wallet_nonce). */
  requestFetches: Array<{ method: string; form: Record<string, string> }>;
  /** Signs the request object, echoing the wallet_nonce of a POST (OpenID4VP 1.0 §5.10.1). */
  signRequestObject(walletNonce?: string): Promise<string>;
  /** Every form the wallet posted to this session. */
  posts: Array<Record<string, string>>;
  outcome?: SessionOutcome;
}

export interface TestVerifier {
  baseUrl: string;
  keys: VerifierKeys;
  createSession(options: {
    prefix: ClientIdPrefix;
    responseMode: ResponseMode;
    dcqlQuery: DcqlQuery.Input;
    fault?: RequestObjectFault;
    requestUriMethod?: 'post';
    /** A client_id that does not fit the signing key (wrong DNS name, hash or DID). */
    clientIdOverride?: string;
  }): Promise<VerifierSession>;
  close(): Promise<void>;
}

async function readForm(request: IncomingMessage): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
}

/** The library refuses http URLs unless switched; the verifier switches only while it builds a request. */
async function withInsecureUrls<T>(work: () => Promise<T>): Promise<T> {
  const saved = getGlobalConfig();
  setGlobalConfig({ ...saved, allowInsecureUrls: true });
  try {
    return await work();
  } finally {
    setGlobalConfig(saved);
  }
}

/**
 * A minimal OpenID4VP 1.0 verifier for the wallet's tests, built from @openid4vc/openid4vp's verifier functions:
 * createOpenid4vpAuthorizationRequest (signed request object at a request_uri) and
 * parseOpenid4vpAuthorizationResponse (including direct_post.jwt decryption), plus its own checks of every
 * presentation, the DCQL query, single use of the response_uri, and replay across sessions.
 */
export async function startTestVerifier(options: { trustedIssuers: TrustedIssuer[] }): Promise<TestVerifier> {
  const host = 'localhost';
  const keys = await createVerifierKeys(host);
  const sessions = new Map<string, VerifierSession>();
  const seenProofs = new Set<string>();
  let baseUrl = '';

  const signJwt = async (
    signer: JwtSigner,
    jwt: { header: Record<string, unknown>; payload: Record<string, unknown> },
  ) => {
    const header = { ...jwt.header, alg: signer.alg };
    return {
      jwt: await signCompactJwt({ header, payload: jwt.payload, privateJwk: keys.signingJwk }),
      signerJwk: keys.signingJwk as never,
    };
  };
  const decryptJwe = async (jwe: string) => {
    const { plaintext } = await compactDecrypt(jwe, await importJWK(keys.encryptionPrivateJwk, 'ECDH-ES'));
    return {
      decrypted: true as const,
      decryptionJwk: keys.encryptionPublicJwk as never,
      payload: new TextDecoder().decode(plaintext),
    };
  };

  const verifyResponse = async (session: VerifierSession, form: Record<string, string>): Promise<SessionOutcome> => {
    const parsed = await parseOpenid4vpAuthorizationResponse({
      authorizationResponse: form,
      authorizationRequestPayload: session.payload,
      callbacks: { decryptJwe, verifyJwt: async () => ({ verified: false as const }) },
    });
    if (parsed.type !== 'dcql') throw new Error('not a DCQL response');
    const query = DcqlQuery.parse(session.dcqlQuery);
    const now = Math.floor(Date.now() / 1000);
    const verified: Record<string, VerifiedPresentation[]> = {};
    for (const [queryId, presentations] of Object.entries(parsed.dcql.presentations)) {
      verified[queryId] = [];
      for (const presentation of presentations) {
        if (typeof presentation !== 'string') throw new Error('presentation is not a string');
        const check = {
          presentation,
          trustedIssuers: options.trustedIssuers,
          clientId: session.clientId,
          nonce: session.nonce,
          now,
        };
        verified[queryId].push(
          presentation.includes('~') ? await verifySdJwtPresentation(check) : await verifyJwtVcPresentation(check),
        );
      }
    }
    const dcqlResult = DcqlPresentationResult.fromDcqlPresentation(
      Object.fromEntries(Object.entries(verified).map(([id, list]) => [id, list.map((item) => item.dcql)])),
      { dcqlQuery: query },
    );
    if (!dcqlResult.can_be_satisfied) throw new Error('the presentations do not satisfy the DCQL query');
    const proofs = Object.values(verified).flatMap((list) => list.map((item) => item.bindingProof));
    if (proofs.some((proof) => seenProofs.has(proof))) throw new Error('replayed presentation');
    for (const proof of proofs) seenProofs.add(proof);
    return {
      accepted: true,
      claims: Object.fromEntries(Object.entries(verified).map(([id, list]) => [id, list[0]!.claims])),
    };
  };

  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', baseUrl);
      const [, kind, id = '', redirected] = url.pathname.split('/');
      const session = sessions.get(id);
      if (!session) {
        response.writeHead(404).end();
        return;
      }
      if (kind === 'request' && (request.method === 'GET' || request.method === 'POST')) {
        // The redirect target serves the request object, so a wallet that followed the redirect would be seen.
        if (session.fault === 'redirect' && redirected === undefined) {
          response.writeHead(302, { location: `${baseUrl}/request/${id}/elsewhere` }).end();
          return;
        }
        const form = request.method === 'POST' ? await readForm(request) : {};
        session.requestFetches.push({ method: request.method, form });
        const contentType =
          session.fault === 'wrong-content-type' ? 'application/json' : 'application/oauth-authz-req+jwt';
        response
          .writeHead(200, { 'content-type': contentType })
          .end(await session.signRequestObject(form['wallet_nonce']));
        return;
      }
      if (kind === 'response' && request.method === 'POST') {
        const form = await readForm(request);
        session.posts.push(form);
        if (session.posts.length > 1) {
          response
            .writeHead(400, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error: 'invalid_request', error_description: 'response_uri already used' }));
          return;
        }
        try {
          session.outcome = await verifyResponse(session, form);
          response
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ redirect_uri: `${baseUrl}/done/${id}` }));
        } catch (error) {
          session.outcome = { accepted: false, error: (error as Error).message };
          response
            .writeHead(400, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error: 'invalid_request', error_description: (error as Error).message }));
        }
        return;
      }
      response.writeHead(405).end();
    })().catch(() => response.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://${host}:${(server.address() as AddressInfo).port}`;

  return {
    get baseUrl() {
      return baseUrl;
    },
    keys,
    createSession: async ({ prefix, responseMode, dcqlQuery, fault, requestUriMethod, clientIdOverride }) => {
      const id = randomUUID();
      const nonce = randomBytes(32).toString('base64url');
      const state = randomBytes(16).toString('base64url');
      const requestUri = `${baseUrl}/request/${id}`;
      const responseUri = `${baseUrl}/response/${id}`;
      const clientId =
        clientIdOverride ??
        (prefix === 'x509_san_dns'
          ? `x509_san_dns:${host}`
          : prefix === 'x509_hash'
            ? `x509_hash:${keys.leafHash}`
            : `decentralized_identifier:${keys.did}`);
      const jwtSigner: JwtSigner =
        prefix === 'decentralized_identifier'
          ? { method: 'did', didUrl: keys.didKeyId, alg: 'ES256' }
          : { method: 'x5c', x5c: [keys.leafX5c], alg: 'ES256' };
      const clientMetadata: Record<string, unknown> = {
        vp_formats_supported: {
          'dc+sd-jwt': { 'sd-jwt_alg_values': ['ES256'], 'kb-jwt_alg_values': ['ES256'] },
          jwt_vc_json: { alg_values: ['ES256'] },
        },
        ...(responseMode === 'direct_post.jwt'
          ? {
              jwks: { keys: [keys.encryptionPublicJwk] },
              encrypted_response_enc_values_supported: ['A128GCM', 'A256GCM'],
            }
          : {}),
      };
      const payload = {
        response_type: 'vp_token' as const,
        client_id: clientId,
        response_uri: responseUri,
        response_mode: responseMode,
        nonce,
        state,
        dcql_query: dcqlQuery,
        client_metadata: clientMetadata,
      };
      const create = (walletNonce?: string) =>
        withInsecureUrls(() =>
          createOpenid4vpAuthorizationRequest({
            authorizationRequestPayload: walletNonce ? { ...payload, wallet_nonce: walletNonce } : payload,
            jar: { requestUri, jwtSigner, expiresInSeconds: 300 },
            ...(walletNonce ? { wallet: { expectedNonce: walletNonce } } : {}),
            callbacks: {
              signJwt: signJwt as never,
              encryptJwe: async () => {
                throw new Error('unused');
              },
            },
          }),
        );
      const created = await create();
      const signRequestObject = async (walletNonce?: string): Promise<string> => {
        let requestObject = (walletNonce ? await create(walletNonce) : created).jar!.authorizationRequestJwt;
        if (fault === 'wrong-typ') {
          const [, body] = requestObject.split('.');
          requestObject = await signCompactJwt({
            header: {
              alg: 'ES256',
              typ: 'JWT',
              ...(prefix === 'decentralized_identifier' ? { kid: keys.didKeyId } : { x5c: [keys.leafX5c] }),
            },
            payload: JSON.parse(Buffer.from(body!, 'base64url').toString('utf8')),
            privateJwk: keys.signingJwk,
          });
        }
        if (fault === 'tampered-signature') {
          const [header, body, signature] = requestObject.split('.') as [string, string, string];
          const changed = { ...JSON.parse(Buffer.from(body, 'base64url').toString('utf8')), nonce: 'changed' };
          requestObject = `${header}.${Buffer.from(JSON.stringify(changed)).toString('base64url')}.${signature}`;
        }
        return requestObject;
      };
      const link =
        requestUriMethod === 'post'
          ? `${created.authorizationRequest}&request_uri_method=post`
          : created.authorizationRequest;
      const session: VerifierSession = {
        id,
        link,
        clientId,
        nonce,
        state,
        requestUri,
        responseUri,
        dcqlQuery,
        payload: created.authorizationRequestPayload as Openid4vpAuthorizationRequest,
        ...(fault ? { fault } : {}),
        requestFetches: [],
        signRequestObject,
        posts: [],
      };
      sessions.set(id, session);
      return session;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import QRCode from 'qrcode';
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';

/**
 * STAND-IN for the bridge's session API, for test/portal-routes.test.ts only: an HTTP server that speaks exactly the
 * spec's session API (000 §4.1, with the clientId/codeChallenge extension and the redeem endpoint the token service
 * calls), with bearer tokens verified against the token service's key set, and whose sessions the test sets to any
 * state: ERROR with a given failed check, EXPIRED, removed by the cleanup, or the whole bridge down. The real bridge
 * reaches these states only through time, hostile wallets or a stopped process. Identity verification (000 §4.2) is
 * not played here: its tests run against the real bridge and the development identity provider
 * (test/identity-verification.test.ts, test/browser/identity-verification.test.ts).
 */

export interface StandInSession {
  id: string;
  status: string;
  oauthSessionId: string | null;
  clientId: string | null;
  codeChallenge: string | null;
  requestUri: string;
  /** true: complete answers 200 when VERIFIED (known holder); false: 202 and IDV_REQUIRED. */
  knownHolder: boolean;
  failure: { check: string; reason: string } | null;
  redeemed: boolean;
}

export interface StandInBridge {
  url: string;
  sessions: Map<string, StandInSession>;
  /** Every call, as `METHOD path` (no query), for assertions about what the portal asked. */
  calls: string[];
  userId: string;
  trustIssuer(tokenServiceUrl: string): void;
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body?: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(body === undefined ? undefined : JSON.stringify(body));
};
const error = (res: ServerResponse, status: number, code: string) =>
  json(res, status, { error: code, error_description: code.replace(/_/g, ' ') });

async function body(req: IncomingMessage): Promise<Record<string, unknown> | null> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  if (chunks.length === 0) return {};
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export async function startStandInBridge(): Promise<StandInBridge> {
  let issuer: string | null = null;
  let keys: JWTVerifyGetKey | null = null;
  const sessions = new Map<string, StandInSession>();
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const bridge: StandInBridge = {
    url,
    sessions,
    calls: [],
    userId: randomUUID(),
    trustIssuer(tokenServiceUrl) {
      issuer = tokenServiceUrl;
      keys = createRemoteJWKSet(new URL(`${tokenServiceUrl}/.well-known/jwks.json`));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  /** 000 §5: service to service; the scope decides which endpoints a caller may use. */
  async function authorized(req: IncomingMessage, scope: string): Promise<boolean> {
    const header = req.headers.authorization;
    if (!header?.startsWith('Bearer ') || !keys || !issuer) return false;
    try {
      const { payload } = await jwtVerify(header.slice(7), keys, { issuer, audience: 'tessera-services' });
      return String(payload.scope ?? '')
        .split(' ')
        .includes(scope);
    } catch {
      return false;
    }
  }

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const u = new URL(req.url ?? '/', url);
    bridge.calls.push(`${req.method} ${u.pathname}`);
    void handle(req, res, u).catch(() => error(res, 500, 'server_error'));
  });

  async function handle(req: IncomingMessage, res: ServerResponse, u: URL) {
    const m = /^\/auth\/oid4vp\/sessions(?:\/([0-9a-f-]{36})(\/[a-z/]+))?$/.exec(u.pathname);
    if (!m) return error(res, 404, 'not_found');
    const [, id, rest] = m;
    if (!id) {
      if (req.method !== 'POST') return error(res, 404, 'not_found');
      if (!(await authorized(req, 'bridge:sessions'))) return error(res, 401, 'invalid_token');
      const b = await body(req);
      if (!b || typeof b.queryId !== 'string' || b.queryId === '') return error(res, 400, 'invalid_request');
      const sessionId = randomUUID();
      const requestUri = `openid4vp://?client_id=${encodeURIComponent('x509_san_dns:localhost')}&request_uri=${encodeURIComponent(`${url}/auth/oid4vp/requests/${sessionId}`)}`;
      sessions.set(sessionId, {
        id: sessionId,
        status: 'CREATED',
        oauthSessionId: typeof b.oauthSessionId === 'string' ? b.oauthSessionId : null,
        clientId: typeof b.clientId === 'string' ? b.clientId : null,
        codeChallenge: typeof b.codeChallenge === 'string' ? b.codeChallenge : null,
        requestUri,
        knownHolder: false,
        failure: null,
        redeemed: false,
      });
      const qrCodeDataUri = await QRCode.toDataURL(requestUri, { errorCorrectionLevel: 'M', margin: 2, scale: 6 });
      return json(res, 200, {
        sessionId,
        qrCodeDataUri,
        requestUri,
        statusUri: `/auth/oid4vp/sessions/${sessionId}/status`,
        qrPageUri: `/auth/oid4vp/qr/${sessionId}`,
      });
    }

    const session = sessions.get(id);
    const redeem = rest === '/redeem';
    if (!(await authorized(req, redeem ? 'bridge:redeem' : 'bridge:sessions'))) return error(res, 401, 'invalid_token');
    if (!session) return error(res, 404, 'session_not_found');
    if (session.status === 'EXPIRED') return error(res, 410, 'session_expired');
    const route = `${req.method} ${rest}`;
    switch (route) {
      case 'GET /status':
        return json(res, 200, {
          sessionId: session.id,
          status: session.status,
          idvRequired: session.status === 'IDV_REQUIRED',
          idvRequirementReason: session.status === 'IDV_REQUIRED' ? 'No identity is bound to this wallet.' : null,
          reconciliationPlanType: ['VERIFIED', 'IDV_REQUIRED', 'COMPLETED'].includes(session.status)
            ? session.knownHolder
              ? 'USE_EXISTING_BINDING'
              : 'RECONCILE_VIA_IDV'
            : null,
          ...(session.status === 'ERROR' && session.failure ? { failure: session.failure } : {}),
        });
      case 'POST /complete':
        if (session.status === 'COMPLETED' || (session.status === 'VERIFIED' && session.knownHolder)) {
          session.status = 'COMPLETED';
          return json(res, 200, completion(session));
        }
        if (session.status === 'VERIFIED' || session.status === 'IDV_REQUIRED') {
          session.status = 'IDV_REQUIRED';
          return json(res, 202, { idvRequired: true, idvMethod: 'oidc', idvSteps: ['Sign in at your institution.'] });
        }
        return error(res, 409, 'invalid_session_state');
      case 'POST /redeem': {
        const b = await body(req);
        if (
          !b ||
          session.status !== 'COMPLETED' ||
          session.redeemed ||
          b.clientId !== session.clientId ||
          b.codeChallenge !== session.codeChallenge
        ) {
          return json(res, 409, {
            error: 'invalid_session_state',
            error_description: 'not redeemable',
            status: session.status,
          });
        }
        session.redeemed = true;
        return json(res, 200, {
          sessionId: session.id,
          oauthSessionId: session.oauthSessionId,
          ...completion(session),
        });
      }
      default:
        return error(res, 404, 'not_found');
    }
  }

  function completion(session: StandInSession) {
    return {
      userId: bridge.userId,
      claims: { service_id: 'S-0815', eduperson_principal_name: 'grace@uni.example', email: 'grace@uni.example' },
      isNewUser: !session.knownHolder,
      authenticatedAt: new Date().toISOString(),
      acr: 'urn:tessera:oid4vp:vp',
      amr: ['vp'],
      claimSource: session.knownHolder ? 'CANONICAL_BINDING' : 'IDV_RECONCILIATION',
    };
  }

  return bridge;
}

import { request } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import { issueAuthorizationCode } from '../../src/commands/issue-authorization-code.js';
import type { TokenServiceHarness } from './harness.js';
import { RP_REDIRECT } from './harness.js';

export const challengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/**
 * Issues an authorization code as the authorization endpoint does at the end of a login, for tests of the
 * token endpoint that need many codes (the login itself is covered end to end in federated-flow.test.ts).
 */
export async function mintCode(
  h: TokenServiceHarness,
  options: {
    clientId?: string;
    redirectUri?: string;
    scope?: string;
    nonce?: string;
    subject?: string;
    tenantId?: string;
  } = {},
): Promise<{ code: string; verifier: string; redirectUri: string }> {
  const verifier = randomBytes(48).toString('base64url');
  const redirectUri = options.redirectUri ?? RP_REDIRECT;
  const tenantId = options.tenantId ?? 'demo';
  const location = await h.platform.db.withTenant(tenantId, (sql) =>
    issueAuthorizationCode(
      h.ctx,
      tenantId,
      sql,
      {
        clientId: options.clientId ?? 'demo-rp',
        redirectUri,
        scope: options.scope ?? 'openid profile email service_id offline_access',
        state: 'st',
        nonce: options.nonce ?? 'n-1',
        codeChallenge: challengeOf(verifier),
        codeChallengeMethod: 'S256',
        dpopJkt: null,
      },
      {
        subject: options.subject ?? '11111111-2222-4333-8444-555555555555',
        acr: 'urn:test:acr',
        amr: ['federation'],
        authTime: new Date(),
        claims: { email: 'alice@demo.example', service_id: 'svc-alice', given_name: 'Alice' },
      },
    ),
  );
  return { code: new URL(location).searchParams.get('code')!, verifier, redirectUri };
}

export const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

export async function postForm(url: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    body = { raw: text };
  }
  return { status: res.status, headers: res.headers, body };
}

/** A form POST with an explicit Host header (fetch does not let a caller choose Host). */
export function postFormToHost(
  url: string,
  host: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
) {
  return new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const body = new URLSearchParams(form).toString();
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          host,
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(body),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString('utf8')));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

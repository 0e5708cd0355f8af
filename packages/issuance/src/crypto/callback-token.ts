import { randomUUID } from 'node:crypto';
import { constantTimeEqual, type KeyManager } from '@tessera/platform';
import { DEFERRED_PHASE, type Phase } from '../domain/phases.js';

/**
 * The capability token of the callback ingress (001 §4.2, §5; format and lifetime are ours, README.md):
 *
 *   cb1.<key version>.<base64url(JSON claims)>.<base64url(HMAC-SHA256)>
 *
 * MACed under the platform key manager's HS256 key `issuance.callback-tokens` (the version names the key version,
 * so that a rotation keeps tokens in flight valid), over everything before the last dot. The claims bind the
 * tenant, the session's correlation id, the contributor, the deferred phase, an expiry (default 15 minutes) and a
 * unique id that is spent on first use (single use).
 */
export const CALLBACK_KEY_ALIAS = 'issuance.callback-tokens';
const PREFIX = 'cb1';

export interface CallbackClaims {
  tenantId: string;
  correlationId: string;
  contributorId: string;
  phase: Phase;
  /** Expiry, seconds since the epoch. */
  exp: number;
  /** Unique id, spent on first use. */
  jti: string;
}

interface WireClaims {
  t: string;
  c: string;
  k: string;
  p: string;
  exp: number;
  jti: string;
}

const encoder = new TextEncoder();
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

export async function issueCallbackToken(
  keys: KeyManager,
  subject: { tenantId: string; correlationId: string; contributorId: string },
  now: Date,
  ttlSeconds: number,
): Promise<{ token: string; claims: CallbackClaims }> {
  const claims: CallbackClaims = {
    ...subject,
    phase: DEFERRED_PHASE,
    exp: Math.floor(now.getTime() / 1000) + ttlSeconds,
    jti: randomUUID(),
  };
  const wire: WireClaims = {
    t: claims.tenantId,
    c: claims.correlationId,
    k: claims.contributorId,
    p: claims.phase,
    exp: claims.exp,
    jti: claims.jti,
  };
  const info = await keys.ensureSymmetric(CALLBACK_KEY_ALIAS, 'HS256');
  const signed = `${PREFIX}.${info.version}.${b64(encoder.encode(JSON.stringify(wire)))}`;
  const { mac } = await keys.hmacWithVersion(CALLBACK_KEY_ALIAS, info.version, encoder.encode(signed));
  return { token: `${signed}.${b64(mac)}`, claims };
}

/**
 * The claims of a token whose MAC verifies, which has not expired and which is pinned to the deferred phase; else
 * null (forged, altered, expired, another phase, unknown key version or not a token at all: the caller learns no
 * more than "not valid").
 */
export async function verifyCallbackToken(keys: KeyManager, token: string, now: Date): Promise<CallbackClaims | null> {
  const parts = token.split('.');
  if (parts.length !== 4 || parts[0] !== PREFIX || !/^[1-9][0-9]{0,8}$/.test(parts[1]!)) return null;
  const [, version, payload, mac] = parts as [string, string, string, string];
  let expected: Uint8Array;
  try {
    expected = (
      await keys.hmacWithVersion(CALLBACK_KEY_ALIAS, Number(version), encoder.encode(`${PREFIX}.${version}.${payload}`))
    ).mac;
  } catch {
    return null;
  }
  const given = Buffer.from(mac, 'base64url');
  if (!constantTimeEqual(given, expected)) return null;
  let wire: WireClaims;
  try {
    wire = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as WireClaims;
  } catch {
    return null;
  }
  if (wire.p !== DEFERRED_PHASE || typeof wire.exp !== 'number' || wire.exp * 1000 <= now.getTime()) return null;
  return {
    tenantId: wire.t,
    correlationId: wire.c,
    contributorId: wire.k,
    phase: DEFERRED_PHASE,
    exp: wire.exp,
    jti: wire.jti,
  };
}

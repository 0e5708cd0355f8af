import { constantTimeEqual, type KeyManager } from '@tessera/platform';

/**
 * The `state` of the IDV authorization request (000 §2.4: "signed, opaque, encodes both session ids, expires and
 * is single-use"; §4.2 (1) "decrypt and verify state"). A compact JWS (HS256 under the key manager's HMAC key
 * `bridge-idv-state-mac`) of `{v, rid, sid, jti, exp}`, sealed whole with the key manager's envelope encryption
 * (A256GCM under `bridge-idv-state`, a fresh data key per state) with a fixed purpose as additional data. Neither
 * session id can be read from the URL, and a state that does not open, or whose MAC does not hold, names nothing.
 * Expiry is checked by the caller (its clock); single use by the reconciliation's conditional update (`jti`).
 */
export const IDV_STATE_MAC_ALIAS = 'bridge-idv-state-mac';
export const IDV_STATE_ENCRYPTION_ALIAS = 'bridge-idv-state';
const PURPOSE = 'tessera/bridge/idv-state/v1';
const TYPE = 'tessera-idv-state';
/** Longer than any state this codec makes (about 450 characters); longer input is refused unread. */
const MAX_STATE_LENGTH = 2048;

export interface IdvStateClaims {
  reconciliationId: string;
  sessionId: string;
  /** Random id of this state: the reconciliation records it and spends it once. */
  stateId: string;
  expiresAt: Date;
}

const encoder = new TextEncoder();
const b64u = (value: string | Uint8Array) => Buffer.from(value).toString('base64url');
const json = (part: string): unknown => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export class IdvStateCodec {
  private ready: Promise<unknown> | null = null;

  constructor(private readonly keys: KeyManager) {}

  private ensureEncryptionKey(): Promise<unknown> {
    if (!this.ready)
      this.ready = this.keys.ensureSymmetric(IDV_STATE_ENCRYPTION_ALIAS, 'A256GCM').catch((error: unknown) => {
        this.ready = null;
        throw error;
      });
    return this.ready;
  }

  async encode(claims: IdvStateClaims): Promise<string> {
    await this.ensureEncryptionKey();
    const mac = await this.keys.ensureSymmetric(IDV_STATE_MAC_ALIAS, 'HS256');
    const header = b64u(JSON.stringify({ alg: 'HS256', typ: TYPE, kv: mac.version }));
    const payload = b64u(
      JSON.stringify({
        v: 1,
        rid: claims.reconciliationId,
        sid: claims.sessionId,
        jti: claims.stateId,
        exp: Math.floor(claims.expiresAt.getTime() / 1000),
      }),
    );
    const input = `${header}.${payload}`;
    const signature = await this.keys.hmacWithVersion(IDV_STATE_MAC_ALIAS, mac.version, encoder.encode(input));
    const jws = `${input}.${b64u(signature.mac)}`;
    return (await this.keys.encrypt(IDV_STATE_ENCRYPTION_ALIAS, encoder.encode(jws), encoder.encode(PURPOSE)))
      .ciphertext;
  }

  /** The claims of a state this bridge made and nobody altered; null for anything else (never an exception). */
  async decode(state: string): Promise<IdvStateClaims | null> {
    if (state.length === 0 || state.length > MAX_STATE_LENGTH || !/^[A-Za-z0-9._-]+$/.test(state)) return null;
    try {
      const opened = await this.keys.decrypt(state, encoder.encode(PURPOSE));
      if (opened.alias !== IDV_STATE_ENCRYPTION_ALIAS) return null;
      const parts = Buffer.from(opened.plaintext).toString('utf8').split('.');
      if (parts.length !== 3) return null;
      const [header, payload, signature] = parts as [string, string, string];
      const h = json(header);
      if (!isRecord(h) || h.alg !== 'HS256' || h.typ !== TYPE || !Number.isInteger(h.kv)) return null;
      const expected = await this.keys.hmacWithVersion(
        IDV_STATE_MAC_ALIAS,
        h.kv as number,
        encoder.encode(`${header}.${payload}`),
      );
      const given = Buffer.from(signature, 'base64url');
      if (!constantTimeEqual(given, expected.mac)) return null;
      const p = json(payload);
      if (!isRecord(p) || p.v !== 1) return null;
      const { rid, sid, jti, exp } = p;
      if (typeof rid !== 'string' || !UUID.test(rid) || typeof sid !== 'string' || !UUID.test(sid)) return null;
      if (typeof jti !== 'string' || !/^[A-Za-z0-9_-]{22,64}$/.test(jti) || !Number.isInteger(exp)) return null;
      return { reconciliationId: rid, sessionId: sid, stateId: jti, expiresAt: new Date((exp as number) * 1000) };
    } catch {
      return null;
    }
  }
}

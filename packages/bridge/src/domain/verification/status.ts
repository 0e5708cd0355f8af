import { gunzipSync, inflateSync } from 'node:zlib';
import { Bitstring } from '@digitalbazaar/bitstring';
import type { JWK } from 'jose';
import { fail, pass, type CheckResult } from './check.js';
import type { StatusReference, VerifiedCredential } from './credential.js';
import { acceptedAlgorithm, decodeJws, isObjectValue, verifyJws, type DecodedJws } from './jws.js';
import { validateChain, type CheckTime } from './x509-chain.js';

/**
 * Revocation status, failing closed (security checklist; Token Status List §8.3; W3C Bitstring Status List §3.2):
 * the credential is refused when its list cannot be had (the source throws once its cache has expired), is not a
 * status list, is not signed by the credential's issuer, names another `sub`/`id` than the referenced URI, has
 * expired, is too short for the index, or has the credential's status set.
 */
export interface StatusListSource {
  /** The current token of the list at `uri`, from the shared cache or fetched; throws when it cannot be had. */
  token(uri: string): Promise<string>;
}

/** Decompressed lists are capped: a status list is at most a few MiB; a deflate bomb stops here. */
const MAX_LIST_BYTES = 16 * 1024 * 1024;
const MEMO_LIMIT = 128;
const MEMO_MAX_TOKEN = 64 * 1024;

type DecodedList =
  | {
      ok: true;
      bytes: Uint8Array;
      bits: number;
      bitstring: boolean;
      purpose: string | null;
      /** exp or validUntil, seconds */ expiresAt: number | null;
    }
  | { ok: false; reason: string };

const TOKEN_STATUS_NAMES: Record<number, string> = { 1: 'revoked (INVALID)', 2: 'suspended' };

export class StatusChecker {
  /** Verified, decoded lists by token and issuer key: repeated checks against a cached list skip the signature. */
  private readonly memo = new Map<string, DecodedList>();

  constructor(
    private readonly source: StatusListSource,
    private readonly options: { clockSkewSeconds: number },
  ) {}

  async check(credential: VerifiedCredential, now: Date): Promise<CheckResult> {
    for (const ref of credential.statuses) {
      const result = await this.checkOne(credential, ref, now);
      if (!result.ok) return result;
    }
    return pass('status', credential.credentialQueryId);
  }

  private async checkOne(credential: VerifiedCredential, ref: StatusReference, now: Date): Promise<CheckResult> {
    const id = credential.credentialQueryId;
    let token: string;
    try {
      token = await this.source.token(ref.uri);
    } catch {
      return fail('status', 'the status list is unavailable and no fresh copy is cached', id);
    }
    const key = `${token}\n${JSON.stringify(credential.issuerJwk)}`;
    let list = this.memo.get(key);
    if (!list || !list.ok) {
      list = await this.decode(token, ref, credential, now);
      if (list.ok && token.length <= MEMO_MAX_TOKEN) this.remember(key, list);
    } else if (list.expiresAt !== null && now.getTime() / 1000 > list.expiresAt + this.options.clockSkewSeconds) {
      // A remembered list still expires.
      return fail('status', 'the status list has expired', id);
    }
    if (!list.ok) return fail('status', list.reason, id);
    if (list.bitstring && list.purpose !== (ref as Extract<StatusReference, { kind: 'bitstring' }>).purpose)
      return fail('status', 'the status list purpose is not the entry purpose', id);
    const value = statusAt(list, ref.idx);
    if (value === null) return fail('status', 'the status index is out of the range of the list', id);
    if (value !== 0) {
      const name = list.bitstring
        ? list.purpose === 'suspension'
          ? 'suspended'
          : 'revoked'
        : (TOKEN_STATUS_NAMES[value] ?? `status ${value}`);
      return fail('status', `the credential is ${name}`, id);
    }
    return pass('status', id);
  }

  private remember(key: string, list: DecodedList): void {
    if (this.memo.size >= MEMO_LIMIT) this.memo.delete(this.memo.keys().next().value!);
    this.memo.set(key, list);
  }

  private async decode(
    token: string,
    ref: StatusReference,
    credential: VerifiedCredential,
    now: Date,
  ): Promise<DecodedList> {
    const jws = decodeJws(token.trim());
    if (!jws) return { ok: false, reason: 'the status list is not a signed JWT' };
    if (!acceptedAlgorithm(jws.header.alg))
      return { ok: false, reason: 'the status list is unsigned or uses an algorithm that is not accepted' };
    if (!(await signedByIssuer(jws, credential, { now, skewSeconds: this.options.clockSkewSeconds })))
      return { ok: false, reason: 'the status list is not signed by the credential issuer' };
    const expiresAt = expiryOf(jws, ref);
    if (expiresAt !== null && now.getTime() / 1000 > expiresAt + this.options.clockSkewSeconds)
      return { ok: false, reason: 'the status list has expired' };
    const list = ref.kind === 'token_status_list' ? decodeTokenStatusList(jws, ref) : decodeBitstringList(jws, ref);
    return list.ok ? { ...list, expiresAt } : list;
  }
}

async function signedByIssuer(jws: DecodedJws, credential: VerifiedCredential, at: CheckTime): Promise<boolean> {
  const alg = jws.header.alg as string;
  if (await verifyJws(jws.compact, credential.issuerJwk, alg)) return true;
  // An X.509 issuer may sign its list with another certificate under the same anchor.
  if (credential.trustedIssuer.kind === 'x509' && jws.header.x5c !== undefined) {
    const eku = credential.trustedIssuer.extendedKeyUsage;
    const chain = await validateChain(
      jws.header.x5c,
      credential.trustedIssuer.value,
      jws.payload.iss ?? credential.issuer,
      at,
      eku ? { extendedKeyUsage: eku } : {},
    );
    return chain.ok && verifyJws(jws.compact, chain.leafJwk as JWK, alg);
  }
  return false;
}

/** The list's expiry in seconds: `exp`, and for a status list credential also validUntil (expirationDate). */
function expiryOf(jws: DecodedJws, ref: StatusReference): number | null {
  const times: number[] = [];
  if (typeof jws.payload.exp === 'number') times.push(jws.payload.exp);
  if (ref.kind === 'bitstring') {
    const vc = isObjectValue(jws.payload.vc) ? jws.payload.vc : jws.payload;
    const until =
      typeof vc.validUntil === 'string'
        ? Date.parse(vc.validUntil)
        : typeof vc.expirationDate === 'string'
          ? Date.parse(vc.expirationDate)
          : NaN;
    if (!Number.isNaN(until)) times.push(until / 1000);
  }
  return times.length > 0 ? Math.min(...times) : null;
}

/** Token Status List §5.1: typ statuslist+jwt, sub = the referenced URI, status_list {bits, lst (zlib, base64url)}. */
function decodeTokenStatusList(jws: DecodedJws, ref: StatusReference): DecodedList {
  if (jws.header.typ !== 'statuslist+jwt') return { ok: false, reason: 'the status list typ is not statuslist+jwt' };
  if (jws.payload.sub !== ref.uri) return { ok: false, reason: 'the status list sub is not the referenced URI' };
  const list = jws.payload.status_list;
  if (!isObjectValue(list) || ![1, 2, 4, 8].includes(list.bits as number) || typeof list.lst !== 'string')
    return { ok: false, reason: 'the status list payload is malformed' };
  try {
    const bytes = inflateSync(Buffer.from(list.lst, 'base64url'), { maxOutputLength: MAX_LIST_BYTES });
    return { ok: true, bytes, bits: list.bits as number, bitstring: false, purpose: null, expiresAt: null };
  } catch {
    return { ok: false, reason: 'the status list cannot be decompressed' };
  }
}

/** Bitstring Status List §2.2 (and StatusList2021): a VC whose subject holds statusPurpose and a GZIP encodedList. */
function decodeBitstringList(jws: DecodedJws, ref: StatusReference): DecodedList {
  const vc = isObjectValue(jws.payload.vc) ? jws.payload.vc : jws.payload;
  const types = Array.isArray(vc.type) ? vc.type : [vc.type];
  const v2 = types.includes('BitstringStatusListCredential');
  if (!v2 && !types.includes('StatusList2021Credential'))
    return { ok: false, reason: 'the status list credential type is not supported' };
  const listId = vc.id ?? jws.payload.jti ?? jws.payload.sub;
  if (listId !== undefined && listId !== ref.uri)
    return { ok: false, reason: 'the status list credential id is not the referenced URI' };
  const subject = vc.credentialSubject;
  if (!isObjectValue(subject) || typeof subject.encodedList !== 'string' || typeof subject.statusPurpose !== 'string')
    return { ok: false, reason: 'the status list credential subject is malformed' };
  // Bitstring Status List v1.0 encodes with a multibase base64url prefix `u`; StatusList2021 without.
  const encoded = v2 && subject.encodedList.startsWith('u') ? subject.encodedList.slice(1) : subject.encodedList;
  try {
    // A copy into its own ArrayBuffer: Bitstring reads `buffer.buffer`, which for a pooled Buffer is larger.
    const bytes = new Uint8Array(gunzipSync(Buffer.from(encoded, 'base64url'), { maxOutputLength: MAX_LIST_BYTES }));
    return { ok: true, bytes, bits: 1, bitstring: true, purpose: subject.statusPurpose, expiresAt: null };
  } catch {
    return { ok: false, reason: 'the status list cannot be decompressed' };
  }
}

/** The status at `idx`, or null when the list is too short. */
function statusAt(list: Extract<DecodedList, { ok: true }>, idx: number): number | null {
  if (list.bitstring) {
    if (idx >= list.bytes.length * 8) return null;
    // W3C: the first index is the left-most (most significant) bit of the first byte.
    return new Bitstring({ buffer: list.bytes }).get(idx) ? 1 : 0;
  }
  // Token Status List §4.1: statuses fill each byte from its least significant bit.
  const bitIndex = idx * list.bits;
  if (bitIndex + list.bits > list.bytes.length * 8) return null;
  const byte = list.bytes[bitIndex >> 3]!;
  return (byte >> (bitIndex & 7)) & ((1 << list.bits) - 1);
}

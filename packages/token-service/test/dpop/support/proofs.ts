import { randomBytes } from 'node:crypto';
import { CompactSign, exportJWK, generateKeyPair } from 'jose';
import {
  createDpopContext,
  createDpopProof,
  generateDpopKeyPair,
  type CreateDpopProofOptions,
  type DpopContext,
  type DpopSigningAlg,
} from '@tessera/pkce-dpop';

export interface ClientKey {
  context: DpopContext;
  jkt: string;
  /** A fresh proof by this key (RFC 9449 §4.2). */
  proof(options: Omit<CreateDpopProofOptions, 'issuer' | 'publicJwk'>): Promise<string>;
}

/** A client's DPoP key pair (non-extractable WebCrypto key), through @tessera/pkce-dpop. */
export async function clientKey(alg: DpopSigningAlg = 'ES256'): Promise<ClientKey> {
  const signer = await generateDpopKeyPair(alg);
  const context = await createDpopContext({ method: 'KEY_ALIAS', identifier: `test-${alg}`, signer });
  return {
    context,
    jkt: context.jwkThumbprint,
    proof: async (options) =>
      (await createDpopProof({ issuer: context.issuer, publicJwk: context.publicJwk, ...options })).dpopProof,
  };
}

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

export type CraftKey = Awaited<ReturnType<typeof craftKey>>;

/** An extractable P-256 key pair for hand-built proofs. */
export async function craftKey() {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  return { privateKey, publicJwk: await exportJWK(publicKey), privateJwk: await exportJWK(privateKey) };
}

/**
 * A proof built by hand, for the negative cases of RFC 9449 §4.3: any header and claims, signed by `key` (a new
 * P-256 key by default, whose public JWK is the default `jwk`).
 */
export async function craftedProof(input: {
  htu: string;
  now: Date;
  key?: CraftKey;
  header?: Record<string, unknown>;
  claims?: Record<string, unknown>;
  omit?: string[];
  /** `none`: an unsigned JWS with a placeholder signature; `hs256`: a MAC with a shared secret. */
  signing?: 'es256' | 'none' | 'hs256';
}): Promise<{ proof: string; key: CraftKey }> {
  const key = input.key ?? (await craftKey());
  const header: Record<string, unknown> = { typ: 'dpop+jwt', alg: 'ES256', jwk: key.publicJwk, ...input.header };
  const claims: Record<string, unknown> = {
    jti: randomBytes(12).toString('base64url'),
    htm: 'POST',
    htu: input.htu,
    iat: seconds(input.now),
    ...input.claims,
  };
  for (const name of input.omit ?? []) delete claims[name];
  const signing = input.signing ?? 'es256';
  if (signing === 'none') return { proof: `${encode({ ...header, alg: 'none' })}.${encode(claims)}.AAAA`, key };
  const jws = new CompactSign(Buffer.from(JSON.stringify(claims)));
  if (signing === 'hs256')
    return { proof: await jws.setProtectedHeader({ ...header, alg: 'HS256' }).sign(new Uint8Array(32).fill(7)), key };
  return { proof: await jws.setProtectedHeader(header as { alg: string }).sign(key.privateKey), key };
}

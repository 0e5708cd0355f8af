import { AppError } from '@tessera/platform';

/**
 * The algorithms of the signing API (002 §2.1): the `SignatureAlgorithm` enumeration, ECDSA added (the KeyEntry
 * example names it), and the digest algorithms. Each signature algorithm is a key type, a padding or scheme, and
 * a hash; the `*_RAW*` ones carry no hash of their own: they sign a digest given in DIGEST mode, whose hash is the
 * sign input's `digestAlgorithm`.
 */
export const DIGEST_ALGORITHMS = ['SHA256', 'SHA384', 'SHA512', 'SHA3_256', 'SHA3_512'] as const;
export type DigestAlgorithm = (typeof DIGEST_ALGORITHMS)[number];

export const SIGNATURE_ALGORITHMS = [
  'RSA_RAW',
  'RSA_SHA256',
  'RSA_SHA512',
  'RSA_SHA3_256',
  'RSA_SHA3_512',
  'DSA_SHA256',
  'DSA_SHA512',
  'RSA_SSA_PSS_RAW_MGF1',
  'RSA_SSA_PSS_SHA256_MGF1',
  'RSA_SSA_PSS_SHA512_MGF1',
  'RSA_SSA_PSS_SHA3_256_MGF1',
  'RSA_SSA_PSS_SHA3_512_MGF1',
  'ECDSA_SHA256',
  'ECDSA_SHA384',
  'ECDSA_SHA512',
] as const;
export type SignatureAlgorithm = (typeof SIGNATURE_ALGORITHMS)[number];

export type KeyKind = 'RSA' | 'EC' | 'DSA';
/** PKCS #1 v1.5 (RFC 8017 §8.2), RSASSA-PSS (RFC 8017 §8.1, MGF1 with the signature's hash), ECDSA, DSA. */
export type SignatureScheme = 'PKCS1' | 'PSS' | 'ECDSA' | 'DSA';

export interface AlgorithmSpec {
  name: SignatureAlgorithm;
  keyKind: KeyKind;
  scheme: SignatureScheme;
  /** Null for the RAW algorithms: the digest's own algorithm applies. */
  digest: DigestAlgorithm | null;
}

const SPECS: Record<SignatureAlgorithm, AlgorithmSpec> = {
  RSA_RAW: { name: 'RSA_RAW', keyKind: 'RSA', scheme: 'PKCS1', digest: null },
  RSA_SHA256: { name: 'RSA_SHA256', keyKind: 'RSA', scheme: 'PKCS1', digest: 'SHA256' },
  RSA_SHA512: { name: 'RSA_SHA512', keyKind: 'RSA', scheme: 'PKCS1', digest: 'SHA512' },
  RSA_SHA3_256: { name: 'RSA_SHA3_256', keyKind: 'RSA', scheme: 'PKCS1', digest: 'SHA3_256' },
  RSA_SHA3_512: { name: 'RSA_SHA3_512', keyKind: 'RSA', scheme: 'PKCS1', digest: 'SHA3_512' },
  DSA_SHA256: { name: 'DSA_SHA256', keyKind: 'DSA', scheme: 'DSA', digest: 'SHA256' },
  DSA_SHA512: { name: 'DSA_SHA512', keyKind: 'DSA', scheme: 'DSA', digest: 'SHA512' },
  RSA_SSA_PSS_RAW_MGF1: { name: 'RSA_SSA_PSS_RAW_MGF1', keyKind: 'RSA', scheme: 'PSS', digest: null },
  RSA_SSA_PSS_SHA256_MGF1: { name: 'RSA_SSA_PSS_SHA256_MGF1', keyKind: 'RSA', scheme: 'PSS', digest: 'SHA256' },
  RSA_SSA_PSS_SHA512_MGF1: { name: 'RSA_SSA_PSS_SHA512_MGF1', keyKind: 'RSA', scheme: 'PSS', digest: 'SHA512' },
  RSA_SSA_PSS_SHA3_256_MGF1: {
    name: 'RSA_SSA_PSS_SHA3_256_MGF1',
    keyKind: 'RSA',
    scheme: 'PSS',
    digest: 'SHA3_256',
  },
  RSA_SSA_PSS_SHA3_512_MGF1: {
    name: 'RSA_SSA_PSS_SHA3_512_MGF1',
    keyKind: 'RSA',
    scheme: 'PSS',
    digest: 'SHA3_512',
  },
  ECDSA_SHA256: { name: 'ECDSA_SHA256', keyKind: 'EC', scheme: 'ECDSA', digest: 'SHA256' },
  ECDSA_SHA384: { name: 'ECDSA_SHA384', keyKind: 'EC', scheme: 'ECDSA', digest: 'SHA384' },
  ECDSA_SHA512: { name: 'ECDSA_SHA512', keyKind: 'EC', scheme: 'ECDSA', digest: 'SHA512' },
};

export const algorithmSpec = (name: SignatureAlgorithm): AlgorithmSpec => SPECS[name];

/** node:crypto names of the digests. */
export const NODE_HASH: Record<DigestAlgorithm, string> = {
  SHA256: 'sha256',
  SHA384: 'sha384',
  SHA512: 'sha512',
  SHA3_256: 'sha3-256',
  SHA3_512: 'sha3-512',
};

export const DIGEST_LENGTH: Record<DigestAlgorithm, number> = {
  SHA256: 32,
  SHA384: 48,
  SHA512: 64,
  SHA3_256: 32,
  SHA3_512: 64,
};

/** Digest algorithm OIDs (RFC 5754 §2, NIST CSOR for SHA-3). */
export const DIGEST_OID: Record<DigestAlgorithm, string> = {
  SHA256: '2.16.840.1.101.3.4.2.1',
  SHA384: '2.16.840.1.101.3.4.2.2',
  SHA512: '2.16.840.1.101.3.4.2.3',
  SHA3_256: '2.16.840.1.101.3.4.2.8',
  SHA3_512: '2.16.840.1.101.3.4.2.10',
};

/**
 * The hash a signature is computed with: the algorithm's own, or for a RAW algorithm the sign input's digest
 * algorithm. A hashed algorithm over a DIGEST input must name the same hash as the digest, else the signature would
 * claim a hash it was not computed with.
 */
export function effectiveDigest(spec: AlgorithmSpec, digestAlgorithm: DigestAlgorithm): DigestAlgorithm {
  return spec.digest ?? digestAlgorithm;
}

/** The default algorithm of a key: its kind with the sign input's hash where one exists (RSA: PKCS #1 v1.5). */
export function defaultAlgorithm(keyKind: KeyKind, digest: DigestAlgorithm): SignatureAlgorithm {
  const candidates = SIGNATURE_ALGORITHMS.filter((name) => {
    const spec = SPECS[name];
    return spec.keyKind === keyKind && spec.digest === digest && spec.scheme !== 'PSS';
  });
  if (candidates.length === 0)
    throw new AppError('invalid_request', `No signature algorithm of a ${keyKind} key uses the digest ${digest}.`, {
      field: 'signatureAlgorithm',
    });
  return candidates[0]!;
}

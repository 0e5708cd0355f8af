import { X509Certificate } from 'node:crypto';
import { compactVerify, exportJWK, importJWK, type JWK } from 'jose';
import type { CallbackContext, Jwk, JwtSigner } from '@openid4vc/oauth2';
import type { Clock } from '../common/clock.js';
import { encryptCompactJwe } from '../crypto/encrypt-compact-jwe.js';
import { hashBytes, type HashName } from '../crypto/hash-bytes.js';
import { resolveDidPublicJwk } from '../crypto/resolve-did-key.js';
import { readCertificateNames } from '../x509/read-certificate-names.js';
import { verifyCertificateChain } from '../x509/verify-certificate-chain.js';
import { WALLET_METADATA } from './wallet-metadata.js';

export type WalletCallbacks = Omit<CallbackContext, 'generateRandom' | 'clientAuthentication'>;

/** Findings of one request verification, read by the wallet after the library is done. */
export interface VerificationNotes {
  /** Why a signature was not accepted, for the error message. */
  problems: string[];
  /** Accepted, but worth telling the user (for example an X.509 chain checked against no trust anchor). */
  warnings: string[];
}

const ALLOWED_ALGORITHMS: string[] = [...WALLET_METADATA.request_object_signing_alg_values_supported];

async function verifyWithKey(compact: string, key: Parameters<typeof compactVerify>[1], alg: string): Promise<boolean> {
  try {
    await compactVerify(compact, key, { algorithms: ALLOWED_ALGORITHMS.includes(alg) ? [alg] : [] });
    return true;
  } catch {
    return false;
  }
}

/**
 * The crypto and I/O callbacks the @openid4vc libraries call on the wallet side. Signatures of request objects are
 * checked here: `x5c` against the leaf certificate (and its chain, when trust anchors are configured), `did`
 * against the resolved DID key. Other signer kinds are refused: this wallet supports the x509_san_dns, x509_hash
 * and decentralized_identifier client identifier prefixes only (OpenID4VP 1.0 §5.9.3).
 */
export function createWalletCallbacks(input: {
  trustAnchors: string[];
  clock: Clock;
  fetch: typeof fetch;
  notes: VerificationNotes;
}): WalletCallbacks {
  const verifyJwt = async (signer: JwtSigner, jwt: { compact: string; header: { alg: string } }) => {
    if (signer.method === 'x5c') {
      const [leafEntry] = signer.x5c;
      if (!leafEntry) return { verified: false as const };
      const leaf = new X509Certificate(Buffer.from(leafEntry, 'base64'));
      const signerJwk = (await exportJWK(leaf.publicKey)) as Jwk;
      if (!(await verifyWithKey(jwt.compact, leaf.publicKey, jwt.header.alg))) {
        input.notes.problems.push('the request object signature does not verify with the x5c leaf certificate');
        return { verified: false as const, signerJwk };
      }
      const chain = verifyCertificateChain(signer.x5c, input.trustAnchors, input.clock.now());
      if (!chain.trusted) {
        if (input.trustAnchors.length > 0) {
          input.notes.problems.push(`the verifier certificate is not trusted: ${chain.reason}`);
          return { verified: false as const, signerJwk };
        }
        input.notes.warnings.push(
          `x509-untrusted: the verifier certificate was not checked against a trust anchor (${chain.reason})`,
        );
      }
      return { verified: true as const, signerJwk };
    }
    if (signer.method === 'did') {
      let publicJwk: Jwk;
      try {
        publicJwk = resolveDidPublicJwk(signer.didUrl) as Jwk;
      } catch (error) {
        input.notes.problems.push(`the verifier DID could not be resolved: ${(error as Error).message}`);
        return { verified: false as const };
      }
      const verified = await verifyWithKey(
        jwt.compact,
        await importJWK(publicJwk as JWK, jwt.header.alg),
        jwt.header.alg,
      );
      if (!verified) input.notes.problems.push('the request object signature does not verify with the DID key');
      return verified
        ? { verified: true as const, signerJwk: publicJwk }
        : { verified: false as const, signerJwk: publicJwk };
    }
    input.notes.problems.push(`signer kind '${signer.method}' is not supported by this wallet`);
    return { verified: false as const };
  };

  return {
    fetch: input.fetch,
    hash: (data, alg) => hashBytes(data, alg as HashName),
    verifyJwt,
    getX509CertificateMetadata: (certificate) => readCertificateNames(certificate),
    // Encrypted request objects are not supported.
    decryptJwe: async () => ({ decrypted: false as const }),
    encryptJwe: async (encryptor, data) => ({
      jwe: await encryptCompactJwe(
        {
          publicJwk: encryptor.publicJwk as JWK,
          alg: encryptor.alg,
          enc: encryptor.enc,
          ...(encryptor.apu ? { apu: encryptor.apu } : {}),
          ...(encryptor.apv ? { apv: encryptor.apv } : {}),
        },
        data,
      ),
      encryptionJwk: encryptor.publicJwk,
    }),
    // The wallet signs presentations itself; the library is never asked to sign (no signed JARM responses).
    signJwt: async () => {
      throw new Error('signing through the library is not used by the test wallet');
    },
  };
}

import { createHash } from 'node:crypto';
import { AppError, isAppError } from '@tessera/platform';
import { signedAttributes, type SignedAttributes } from '../cms/cades.js';
import { NODE_HASH, type DigestAlgorithm } from '../domain/algorithms.js';
import { badRequest } from '../domain/errors.js';
import type { KeyEntryRecord } from '../domain/key-entry.js';
import type { WirePadesParameters } from '../domain/pades-parameters.js';
import { digestOf } from '../keys/verify-signature.js';
import { coveredUpdateParts, preparePdf, type PrepareInput, type PreparedPdf } from '../pdf/prepare.js';
import { PreparedUpdates } from './prepared-updates.js';

/** A PAdES signature needs the signing certificate: the CMS names it (ESS signing-certificate-v2). */
export function signingCertificate(entry: KeyEntryRecord): Buffer {
  if (!entry.certificate)
    throw badRequest(
      `The key entry ${JSON.stringify(entry.kid)} has no certificate: a PAdES signature needs one (import it first).`,
      'binding.kid',
    );
  return entry.certificate;
}

/**
 * Room for the CMS in /Contents: the certificates, the signed attributes, a signature of up to 4096-bit RSA and the
 * structure around them, rounded up. It depends only on the key entry, so that both preparations agree.
 */
export function contentsBytes(entry: KeyEntryRecord): number {
  const certificates = (entry.certificate?.length ?? 0) + entry.certificateChain.reduce((n, c) => n + c.length, 0);
  return Math.ceil((certificates + 3072) / 1024) * 1024;
}

export interface PadesPreparation {
  prepared: PreparedPdf;
  /** The digest (the signature's digest algorithm) of the byte-range content: the CMS message-digest. */
  messageDigest: Buffer;
  /** SHA-256 of the original document (the merge's audit event). */
  documentSha256: Buffer;
}

/**
 * Prepares the document for its signature (pdf/prepare.ts) and hashes what the signature covers. The original
 * is hashed once: the SHA-256 state after it gives the document's SHA-256 (audit) and, continued over the covered
 * parts of the update, the byte-range digest (when the digest algorithm is SHA-256; another one hashes the document
 * again). An update prepared for the same document and inputs shortly before (operation 1, then 4) is taken from
 * `updates` with its digests instead of preparing and hashing again: the preparation is deterministic, so they are
 * the same.
 */
export async function preparePades(input: {
  tenantId: string;
  pdf: Buffer;
  password: string | undefined;
  params: WirePadesParameters;
  signingDate: Date;
  entry: KeyEntryRecord;
  fonts: Readonly<Record<string, string>>;
  digestAlgorithm: DigestAlgorithm;
  updates: PreparedUpdates;
}): Promise<PadesPreparation> {
  signingCertificate(input.entry);
  const inputs = {
    tenantId: input.tenantId,
    password: input.password,
    params: input.params,
    signingDate: input.signingDate,
    contentsBytes: contentsBytes(input.entry),
    fonts: input.fonts,
    digestAlgorithm: input.digestAlgorithm,
  };
  const key = PreparedUpdates.key(input.pdf, inputs);
  const kept = input.updates.get(key, input.pdf);
  if (kept) {
    const prepared = { original: input.pdf, update: kept.update, byteRange: kept.byteRange };
    return { prepared, messageDigest: kept.messageDigest, documentSha256: kept.documentSha256 };
  }
  const prepared = await prepareOrRefuse({ ...inputs, pdf: input.pdf });
  const sha256 = createHash('sha256').update(input.pdf);
  const documentSha256 = sha256.copy().digest();
  const hash =
    input.digestAlgorithm === 'SHA256' ? sha256 : createHash(NODE_HASH[input.digestAlgorithm]).update(input.pdf);
  for (const part of coveredUpdateParts(prepared)) hash.update(part);
  const messageDigest = hash.digest();
  input.updates.set(key, { ...prepared, documentSha256, messageDigest });
  return { prepared, messageDigest, documentSha256 };
}

async function prepareOrRefuse(input: PrepareInput): Promise<PreparedPdf> {
  try {
    return await preparePdf(input);
  } catch (error) {
    // A document that parsed but whose structure pdf-lib cannot follow (a broken page tree, an odd object) is the
    // document's fault: 400, with the cause kept for the log.
    if (isAppError(error)) throw error;
    throw new AppError('invalid_request', 'The PDF cannot be prepared for signing: its structure is not supported.', {
      field: 'origData.content',
      wireCode: 'invalid_document',
      cause: error,
    });
  }
}

/** The signed attributes over a byte-range content (what a PAdES signature signs, RFC 5652 §5.4). */
export function padesAttributes(
  entry: KeyEntryRecord,
  digestAlgorithm: DigestAlgorithm,
  content: Buffer,
): SignedAttributes {
  return padesAttributesOfDigest(entry, digestAlgorithm, digestOf(digestAlgorithm, content));
}

/** The signed attributes for the byte-range content's digest (its message-digest attribute). */
export function padesAttributesOfDigest(
  entry: KeyEntryRecord,
  digestAlgorithm: DigestAlgorithm,
  messageDigest: Buffer,
): SignedAttributes {
  return signedAttributes({ digestAlgorithm, messageDigest, certificate: signingCertificate(entry) });
}

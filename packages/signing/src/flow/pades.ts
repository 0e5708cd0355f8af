import { AppError, isAppError } from '@tessera/platform';
import { signedAttributes, type SignedAttributes } from '../cms/cades.js';
import type { DigestAlgorithm } from '../domain/algorithms.js';
import { badRequest } from '../domain/errors.js';
import type { KeyEntryRecord } from '../domain/key-entry.js';
import type { WirePadesParameters } from '../domain/pades-parameters.js';
import { digestOf } from '../keys/verify-signature.js';
import { byteRangeContent, preparePdf, type PreparedPdf } from '../pdf/prepare.js';

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

export async function preparePades(input: {
  pdf: Buffer;
  password: string | undefined;
  params: WirePadesParameters;
  signingDate: Date;
  entry: KeyEntryRecord;
  fonts: Readonly<Record<string, string>>;
}): Promise<{ prepared: PreparedPdf; content: Buffer }> {
  signingCertificate(input.entry);
  let prepared: PreparedPdf;
  try {
    prepared = await preparePdf({
      pdf: input.pdf,
      password: input.password,
      params: input.params,
      signingDate: input.signingDate,
      contentsBytes: contentsBytes(input.entry),
      fonts: input.fonts,
    });
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
  return { prepared, content: byteRangeContent(prepared.bytes, prepared.byteRange) };
}

/** The signed attributes over a byte-range content (what a PAdES signature signs, RFC 5652 §5.4). */
export function padesAttributes(
  entry: KeyEntryRecord,
  digestAlgorithm: DigestAlgorithm,
  content: Buffer,
): SignedAttributes {
  return signedAttributes({
    digestAlgorithm,
    messageDigest: digestOf(digestAlgorithm, content),
    certificate: signingCertificate(entry),
  });
}

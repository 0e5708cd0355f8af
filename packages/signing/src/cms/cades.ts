import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { BoundedCache } from '../domain/bounded-cache.js';
import { DIGEST_OID, NODE_HASH, type AlgorithmSpec, type DigestAlgorithm } from '../domain/algorithms.js';
import { TAG, derSetOf, issuerAndSerial, octetString, oid, sequence, smallInteger, tlv } from './der.js';

/**
 * CMS SignedData for PAdES (ETSI EN 319 142-1 §6.3, ETSI EN 319 122-1 §5): detached content, signed attributes
 * content-type, message-digest and ESS signing-certificate-v2 (RFC 5035), the signing certificate and its chain.
 * The signing time is the signature dictionary's /M: EN 319 142-1 §6.3 (PAdES baseline) excludes the CMS
 * signing-time attribute.
 *
 * The structure is assembled as DER directly (cms/der.ts) from parts that depend only on the certificate or the
 * algorithm and are kept per certificate / per algorithm: the certificates are embedded as they were imported,
 * the issuer and serial number are those encoded in the signing certificate. (Building it as a pkijs object tree
 * for every signature cost several milliseconds per signed PDF, issue 21 bench.)
 */
const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  rsaEncryption: '1.2.840.113549.1.1.1',
  rsassaPss: '1.2.840.113549.1.1.10',
  mgf1: '1.2.840.113549.1.1.8',
};

const SIGNATURE_OID: Record<string, string> = {
  ECDSA_SHA256: '1.2.840.10045.4.3.2',
  ECDSA_SHA384: '1.2.840.10045.4.3.3',
  ECDSA_SHA512: '1.2.840.10045.4.3.4',
  DSA_SHA256: '2.16.840.1.101.3.4.3.2',
  DSA_SHA512: '2.16.840.1.101.3.4.3.4',
};

/** What a certificate contributes to every CMS it signs: its IssuerAndSerialNumber and ESS attribute. */
interface CertificateParts {
  /** IssuerAndSerialNumber (RFC 5652 §10.2.4). */
  issuerAndSerialNumber: Buffer;
  /** The signing-certificate-v2 Attribute (RFC 5035 §3). */
  signingCertificateV2: Buffer;
}

const certificateParts = new BoundedCache<CertificateParts>(512);

function partsOf(certificate: Buffer): CertificateParts {
  return certificateParts.get(certificate.toString('base64'), () => {
    const { issuer, serialNumber } = issuerAndSerial(certificate);
    // ESSCertIDv2 ::= SEQUENCE { hashAlgorithm DEFAULT sha256 (omitted), certHash, issuerSerial IssuerSerial };
    // IssuerSerial ::= SEQUENCE { issuer GeneralNames (directoryName [4] EXPLICIT Name), serialNumber }.
    const essCertIdV2 = sequence(
      octetString(createHash('sha256').update(certificate).digest()),
      sequence(sequence(tlv(TAG.context(4), issuer)), serialNumber),
    );
    // SigningCertificateV2 ::= SEQUENCE { certs SEQUENCE OF ESSCertIDv2 }.
    const value = sequence(sequence(essCertIdV2));
    return {
      issuerAndSerialNumber: sequence(issuer, serialNumber),
      signingCertificateV2: attribute(OID.signingCertificateV2, value),
    };
  });
}

/** Attribute ::= SEQUENCE { attrType, attrValues SET OF } with one value. */
const attribute = (type: string, value: Buffer) => sequence(oid(type), tlv(TAG.set, value));

const CONTENT_TYPE_DATA = attribute(OID.contentType, oid(OID.data));

export interface SignedAttributes {
  /** DER of the attributes as a SET OF: what the signature covers (RFC 5652 §5.4). */
  der: Buffer;
}

export function signedAttributes(input: {
  digestAlgorithm: DigestAlgorithm;
  messageDigest: Buffer;
  certificate: Buffer;
}): SignedAttributes {
  const messageDigest = attribute(OID.messageDigest, octetString(input.messageDigest));
  // DER orders a SET OF by the encodings of its elements (X.690 §11.6).
  const der = derSetOf([CONTENT_TYPE_DATA, messageDigest, partsOf(input.certificate).signingCertificateV2]);
  return { der };
}

const algorithmIds = new Map<string, Buffer>();

/** AlgorithmIdentifier DER, made once per algorithm (pkijs for the PSS parameters). */
function algorithmId(key: string, make: () => pkijs.AlgorithmIdentifier): Buffer {
  let der = algorithmIds.get(key);
  if (!der) {
    der = Buffer.from(make().toSchema().toBER(false));
    algorithmIds.set(key, der);
  }
  return der;
}

const pkijsAlgorithm = (id: string, params?: asn1js.AsnType) =>
  new pkijs.AlgorithmIdentifier({ algorithmId: id, ...(params ? { algorithmParams: params } : {}) });

const digestAlgorithmId = (hash: DigestAlgorithm) => algorithmId(hash, () => pkijsAlgorithm(DIGEST_OID[hash]));

function signatureAlgorithmId(spec: AlgorithmSpec, hash: DigestAlgorithm): Buffer {
  if (spec.scheme === 'PKCS1')
    return algorithmId('rsaEncryption', () => pkijsAlgorithm(OID.rsaEncryption, new asn1js.Null()));
  if (spec.scheme === 'PSS')
    return algorithmId(`PSS/${hash}`, () => {
      const hashId = pkijsAlgorithm(DIGEST_OID[hash]);
      const params = new pkijs.RSASSAPSSParams({
        hashAlgorithm: hashId,
        maskGenAlgorithm: pkijsAlgorithm(OID.mgf1, hashId.toSchema()),
        saltLength: createHash(NODE_HASH[hash]).digest().length,
      });
      return pkijsAlgorithm(OID.rsassaPss, params.toSchema());
    });
  const id = SIGNATURE_OID[spec.name];
  if (!id) throw new Error(`no CMS signature algorithm for ${spec.name}`);
  return algorithmId(spec.name, () => pkijsAlgorithm(id));
}

/** With `attributes` null, the signature is over the content itself (RFC 5652 §5.4), for raw data. */
export function signedData(input: {
  attributes: SignedAttributes | null;
  digestAlgorithm: DigestAlgorithm;
  spec: AlgorithmSpec;
  signature: Buffer;
  certificate: Buffer;
  chain: readonly Buffer[];
}): Buffer {
  const digestAlgorithm = digestAlgorithmId(input.digestAlgorithm);
  // signedAttrs [0] IMPLICIT SignedAttributes: the SET OF with its tag replaced (RFC 5652 §5.3).
  const signedAttrs = input.attributes
    ? [Buffer.concat([Buffer.from([TAG.context(0)]), input.attributes.der.subarray(1)])]
    : [];
  const signerInfo = sequence(
    smallInteger(1),
    partsOf(input.certificate).issuerAndSerialNumber,
    digestAlgorithm,
    ...signedAttrs,
    signatureAlgorithmId(input.spec, input.digestAlgorithm),
    octetString(input.signature),
  );
  const signedDataValue = sequence(
    smallInteger(1),
    tlv(TAG.set, digestAlgorithm),
    // encapContentInfo without eContent: a detached signature.
    sequence(oid(OID.data)),
    // certificates [0] IMPLICIT CertificateSet, signer first, as imported.
    tlv(TAG.context(0), input.certificate, ...input.chain),
    tlv(TAG.set, signerInfo),
  );
  // ContentInfo ::= SEQUENCE { contentType, content [0] EXPLICIT }.
  return sequence(oid(OID.signedData), tlv(TAG.context(0), signedDataValue));
}

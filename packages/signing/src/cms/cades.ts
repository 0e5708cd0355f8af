import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { BoundedCache } from '../domain/bounded-cache.js';
import { DIGEST_OID, NODE_HASH, type AlgorithmSpec, type DigestAlgorithm } from '../domain/algorithms.js';

/**
 * CMS SignedData for PAdES (ETSI EN 319 142-1 §6.3, ETSI EN 319 122-1 §5): detached content, signed attributes
 * content-type, message-digest and ESS signing-certificate-v2 (RFC 5035), the signing certificate and its chain.
 * The signing time is the signature dictionary's /M: EN 319 142-1 §6.3 (PAdES baseline) excludes the CMS
 * signing-time attribute.
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

const parsed = new BoundedCache<pkijs.Certificate>(512);
/** The pkijs form of a DER certificate, parsed once per certificate. */
const parse = (der: Buffer) => parsed.get(der.toString('base64'), () => pkijs.Certificate.fromBER(new Uint8Array(der)));

export interface SignedAttributes {
  attributes: pkijs.Attribute[];
  /** DER of the attributes as a SET OF: what the signature covers (RFC 5652 §5.4). */
  der: Buffer;
}

export function signedAttributes(input: {
  digestAlgorithm: DigestAlgorithm;
  messageDigest: Buffer;
  certificate: Buffer;
}): SignedAttributes {
  const certificate = parse(input.certificate);
  const essCertIdV2 = new asn1js.Sequence({
    value: [
      // hashAlgorithm is omitted: SHA-256 is its DEFAULT (RFC 5035 §4).
      new asn1js.OctetString({ valueHex: new Uint8Array(createHash('sha256').update(input.certificate).digest()) }),
      new asn1js.Sequence({
        value: [
          new asn1js.Sequence({
            value: [
              new asn1js.Constructed({
                idBlock: { tagClass: 3, tagNumber: 4 },
                value: [certificate.issuer.toSchema()],
              }),
            ],
          }),
          certificate.serialNumber,
        ],
      }),
    ],
  });
  const attributes = [
    new pkijs.Attribute({ type: OID.contentType, values: [new asn1js.ObjectIdentifier({ value: OID.data })] }),
    new pkijs.Attribute({
      type: OID.messageDigest,
      values: [new asn1js.OctetString({ valueHex: new Uint8Array(input.messageDigest) })],
    }),
    new pkijs.Attribute({
      type: OID.signingCertificateV2,
      values: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] })],
    }),
  ];
  // DER orders a SET OF by the encodings of its elements (X.690 §11.6).
  const encoded = attributes.map((a) => ({ a, der: Buffer.from(a.toSchema().toBER(false)) }));
  encoded.sort((x, y) => Buffer.compare(x.der, y.der));
  const sorted = encoded.map((e) => e.a);
  const der = Buffer.from(new asn1js.Set({ value: sorted.map((a) => a.toSchema()) }).toBER(false));
  return { attributes: sorted, der };
}

const algorithmId = (oid: string, params?: asn1js.AsnType) =>
  new pkijs.AlgorithmIdentifier({ algorithmId: oid, ...(params ? { algorithmParams: params } : {}) });

function signatureAlgorithmId(spec: AlgorithmSpec, hash: DigestAlgorithm): pkijs.AlgorithmIdentifier {
  if (spec.scheme === 'PKCS1') return algorithmId(OID.rsaEncryption, new asn1js.Null());
  if (spec.scheme === 'PSS') {
    const hashId = algorithmId(DIGEST_OID[hash]);
    const params = new pkijs.RSASSAPSSParams({
      hashAlgorithm: hashId,
      maskGenAlgorithm: algorithmId(OID.mgf1, hashId.toSchema()),
      saltLength: createHash(NODE_HASH[hash]).digest().length,
    });
    return algorithmId(OID.rsassaPss, params.toSchema());
  }
  const oid = SIGNATURE_OID[spec.name];
  if (!oid) throw new Error(`no CMS signature algorithm for ${spec.name}`);
  return algorithmId(oid);
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
  const certificate = parse(input.certificate);
  const chain = input.chain.map(parse);
  const digestAlgorithm = algorithmId(DIGEST_OID[input.digestAlgorithm]);
  const signerInfo = new pkijs.SignerInfo({
    version: 1,
    sid: new pkijs.IssuerAndSerialNumber({ issuer: certificate.issuer, serialNumber: certificate.serialNumber }),
    digestAlgorithm,
    ...(input.attributes
      ? { signedAttrs: new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes: input.attributes.attributes }) }
      : {}),
    signatureAlgorithm: signatureAlgorithmId(input.spec, input.digestAlgorithm),
    signature: new asn1js.OctetString({ valueHex: new Uint8Array(input.signature) }),
  });
  const sd = new pkijs.SignedData({
    version: 1,
    digestAlgorithms: [digestAlgorithm],
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }),
    certificates: [certificate, ...chain],
    signerInfos: [signerInfo],
  });
  const contentInfo = new pkijs.ContentInfo({ contentType: OID.signedData, content: sd.toSchema(true) });
  return Buffer.from(contentInfo.toSchema().toBER(false));
}

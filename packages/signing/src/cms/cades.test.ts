import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestCa } from '../../test/support/pki.js';
import {
  DIGEST_OID,
  NODE_HASH,
  algorithmSpec,
  type DigestAlgorithm,
  type SignatureAlgorithm,
} from '../domain/algorithms.js';
import { signedAttributes, signedData } from './cades.js';
import { issuerAndSerial, oid, readElement } from './der.js';

/**
 * The DER the CMS encoder writes by hand (cms/der.ts) is checked byte for byte against the same structures built
 * as pkijs object trees (the encoder used before, issue 21 bench), for each signature scheme, with and without
 * signed attributes, and the result parses back with pkijs.
 */
const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
};

function referenceAttributes(digest: Buffer, certificateDer: Buffer): pkijs.Attribute[] {
  const certificate = pkijs.Certificate.fromBER(new Uint8Array(certificateDer));
  const essCertIdV2 = new asn1js.Sequence({
    value: [
      new asn1js.OctetString({ valueHex: new Uint8Array(createHash('sha256').update(certificateDer).digest()) }),
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
      values: [new asn1js.OctetString({ valueHex: new Uint8Array(digest) })],
    }),
    new pkijs.Attribute({
      type: OID.signingCertificateV2,
      values: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] })],
    }),
  ];
  const encoded = attributes.map((a) => ({ a, der: Buffer.from(a.toSchema().toBER(false)) }));
  encoded.sort((x, y) => Buffer.compare(x.der, y.der));
  return encoded.map((e) => e.a);
}

const algorithm = (id: string, params?: asn1js.AsnType) =>
  new pkijs.AlgorithmIdentifier({ algorithmId: id, ...(params ? { algorithmParams: params } : {}) });

function referenceSignatureAlgorithm(name: SignatureAlgorithm, hash: DigestAlgorithm): pkijs.AlgorithmIdentifier {
  const spec = algorithmSpec(name);
  if (spec.scheme === 'PKCS1') return algorithm('1.2.840.113549.1.1.1', new asn1js.Null());
  if (spec.scheme === 'PSS') {
    const hashId = algorithm(DIGEST_OID[hash]);
    const params = new pkijs.RSASSAPSSParams({
      hashAlgorithm: hashId,
      maskGenAlgorithm: algorithm('1.2.840.113549.1.1.8', hashId.toSchema()),
      saltLength: createHash(NODE_HASH[hash]).digest().length,
    });
    return algorithm('1.2.840.113549.1.1.10', params.toSchema());
  }
  return algorithm(spec.name === 'ECDSA_SHA384' ? '1.2.840.10045.4.3.3' : '1.2.840.10045.4.3.2');
}

function referenceSignedData(input: {
  attributes: pkijs.Attribute[] | null;
  hash: DigestAlgorithm;
  name: SignatureAlgorithm;
  signature: Buffer;
  certificate: Buffer;
  chain: Buffer[];
}): Buffer {
  const certificate = pkijs.Certificate.fromBER(new Uint8Array(input.certificate));
  const chain = input.chain.map((c) => pkijs.Certificate.fromBER(new Uint8Array(c)));
  const digestAlgorithm = algorithm(DIGEST_OID[input.hash]);
  const signerInfo = new pkijs.SignerInfo({
    version: 1,
    sid: new pkijs.IssuerAndSerialNumber({ issuer: certificate.issuer, serialNumber: certificate.serialNumber }),
    digestAlgorithm,
    ...(input.attributes
      ? { signedAttrs: new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes: input.attributes }) }
      : {}),
    signatureAlgorithm: referenceSignatureAlgorithm(input.name, input.hash),
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

describe('CMS SignedData written as DER', () => {
  let certificate: Buffer;
  let chain: Buffer[];
  beforeAll(async () => {
    const ca = await createTestCa('CMS Test CA');
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const spki = publicKey.export({ format: 'der', type: 'spki' });
    // A long serial number and a multi-attribute subject exercise long-form lengths and the name as encoded.
    certificate = await ca.issue(spki, { subject: 'CN=CMS Signer, O=Tessera, C=DE', serial: '00ff1234567890abcdef' });
    chain = [ca.certificate];
  });

  it('encodes OIDs and finds issuer and serial number as pkijs does', () => {
    expect(oid('1.2.840.113549.1.9.16.2.47')).toEqual(
      Buffer.from(new asn1js.ObjectIdentifier({ value: '1.2.840.113549.1.9.16.2.47' }).toBER(false)),
    );
    const parsed = pkijs.Certificate.fromBER(new Uint8Array(certificate));
    const { issuer, serialNumber } = issuerAndSerial(certificate);
    expect(issuer).toEqual(Buffer.from(parsed.issuer.toSchema().toBER(false)));
    expect(serialNumber).toEqual(Buffer.from(parsed.serialNumber.toBER(false)));
  });

  it('writes the signed attributes byte for byte as the pkijs structure', () => {
    for (const hash of ['SHA256', 'SHA512'] as const) {
      const digest = createHash(NODE_HASH[hash]).update(randomBytes(64)).digest();
      const der = signedAttributes({ digestAlgorithm: hash, messageDigest: digest, certificate }).der;
      const reference = Buffer.from(
        new asn1js.Set({ value: referenceAttributes(digest, certificate).map((a) => a.toSchema()) }).toBER(false),
      );
      expect(der).toEqual(reference);
    }
  });

  it.each([
    ['RSA_SHA256', 'SHA256', 256],
    ['RSA_SHA512', 'SHA512', 512],
    ['RSA_SSA_PSS_SHA256_MGF1', 'SHA256', 256],
    ['RSA_SSA_PSS_SHA512_MGF1', 'SHA512', 512],
    ['ECDSA_SHA256', 'SHA256', 71],
    ['ECDSA_SHA384', 'SHA384', 103],
  ] as const)('writes the SignedData of %s byte for byte as the pkijs structure', (name, hash, signatureLength) => {
    const digest = createHash(NODE_HASH[hash]).update(randomBytes(64)).digest();
    const signature = randomBytes(signatureLength);
    const spec = algorithmSpec(name);
    for (const withAttributes of [true, false]) {
      const cms = signedData({
        attributes: withAttributes
          ? signedAttributes({ digestAlgorithm: hash, messageDigest: digest, certificate })
          : null,
        digestAlgorithm: hash,
        spec,
        signature,
        certificate,
        chain,
      });
      const reference = referenceSignedData({
        attributes: withAttributes ? referenceAttributes(digest, certificate) : null,
        hash,
        name,
        signature,
        certificate,
        chain,
      });
      expect(cms).toEqual(reference);
      const parsed = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(new Uint8Array(cms)).content });
      expect(parsed.signerInfos[0]!.signedAttrs?.attributes.length ?? 0).toBe(withAttributes ? 3 : 0);
      expect(Buffer.from(parsed.signerInfos[0]!.signature.valueBlock.valueHexView)).toEqual(signature);
      expect(readElement(cms, 0).end).toBe(cms.length);
    }
  });
});

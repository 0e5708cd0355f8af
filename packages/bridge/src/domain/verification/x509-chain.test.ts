import { webcrypto } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import { GeneralName, GeneralSubtree, GeneralSubtrees, Name as AsnName, NameConstraints } from '@peculiar/asn1-x509';
import { Value } from 'typebox/value';
import { beforeAll, describe, expect, it } from 'vitest';
import { TrustedIssuerSchema } from '../../config.js';
import { x509, x509Crypto } from '../../crypto/certificates.js';
import { validateChain, type CheckTime } from './x509-chain.js';

/**
 * RFC 5280 path validation of an issuer's x5c chain against a pinned anchor: one chain per rule, each refused with
 * its reason, beside the valid chain. Chains are root (anchor) → intermediate → leaf, ES256, made with
 * @peculiar/x509.
 */
const ISS = 'https://issuer.example';
const ISSUER_EKU = '1.3.6.1.4.1.99999.1';
const at = (): CheckTime => ({ now: new Date(), skewSeconds: 30 });
const alg = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const HOUR = 3_600_000;

type Keys = webcrypto.CryptoKeyPair;
interface Issued {
  certificate: x509.X509Certificate;
  keys: Keys;
}

const newKeys = async () => (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as Keys;
const der = (c: x509.X509Certificate) => Buffer.from(c.rawData).toString('base64');
let serial = 1;

async function issue(options: {
  subject: string;
  issuer?: Issued;
  extensions: x509.Extension[];
  notBefore?: Date;
  notAfter?: Date;
  /** Signs with this key instead of the issuer's (a forged signature under the issuer's name). */
  signingKeys?: Keys;
}): Promise<Issued> {
  const keys = await newKeys();
  const signer = options.signingKeys ?? options.issuer?.keys ?? keys;
  const certificate = await x509.X509CertificateGenerator.create(
    {
      serialNumber: (serial++).toString(16).padStart(2, '0'),
      subject: options.subject,
      issuer: options.issuer?.certificate.subject ?? options.subject,
      notBefore: options.notBefore ?? new Date(Date.now() - HOUR),
      notAfter: options.notAfter ?? new Date(Date.now() + 24 * HOUR),
      publicKey: keys.publicKey as never,
      signingKey: signer.privateKey as never,
      signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } as never,
      extensions: options.extensions,
    },
    x509Crypto,
  );
  return { certificate, keys };
}

const caExtensions = (pathLength?: number, usages = x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign) => [
  new x509.BasicConstraintsExtension(true, pathLength, true),
  new x509.KeyUsagesExtension(usages, true),
];
const leafExtensions = (
  options: {
    san?: string;
    /** More subjectAltNames beside the URI `san`. */
    names?: x509.JsonGeneralNames;
    usages?: x509.KeyUsageFlags;
    eku?: string[];
    extra?: x509.Extension[];
  } = {},
) => [
  new x509.SubjectAlternativeNameExtension([{ type: 'url', value: options.san ?? ISS }, ...(options.names ?? [])]),
  new x509.KeyUsagesExtension(options.usages ?? x509.KeyUsageFlags.digitalSignature, true),
  ...(options.eku ? [new x509.ExtendedKeyUsageExtension(options.eku)] : []),
  ...(options.extra ?? []),
];

/** nameConstraints (2.5.29.30), critical as RFC 5280 §4.2.1.10 asks, encoded with @peculiar/asn1-x509. */
function nameConstraints(permitted: GeneralName[], excluded: GeneralName[] = []): x509.Extension {
  const subtrees = (names: GeneralName[]) =>
    names.length ? new GeneralSubtrees(names.map((base) => new GeneralSubtree({ base }))) : undefined;
  const value = AsnConvert.serialize(
    new NameConstraints({ permittedSubtrees: subtrees(permitted), excludedSubtrees: subtrees(excluded) }),
  );
  return new x509.Extension('2.5.29.30', true, value);
}

let root: Issued;
let intermediate: Issued;
let anchorPem: string;

/** A leaf under the shared intermediate, as an x5c header (leaf, intermediate). */
async function chainWithLeaf(extensions: x509.Extension[], dates: { notBefore?: Date; notAfter?: Date } = {}) {
  const leaf = await issue({ subject: 'CN=Issuer', issuer: intermediate, extensions, ...dates });
  return [der(leaf.certificate), der(intermediate.certificate)];
}

/** A leaf under a fresh intermediate with the given extensions, under the shared root. */
async function chainWithIntermediate(caExts: x509.Extension[], leafExts = leafExtensions(), subject = 'CN=Sub CA') {
  const sub = await issue({ subject, issuer: root, extensions: caExts });
  const leaf = await issue({ subject: 'CN=Issuer', issuer: sub, extensions: leafExts });
  return [der(leaf.certificate), der(sub.certificate)];
}

const refusal = (reason: RegExp) => ({ ok: false, reason: expect.stringMatching(reason) });

beforeAll(async () => {
  root = await issue({ subject: 'CN=Root', extensions: caExtensions(1) });
  intermediate = await issue({ subject: 'CN=Intermediate', issuer: root, extensions: caExtensions(0) });
  anchorPem = root.certificate.toString('pem');
});

describe('validateChain', () => {
  it('accepts a valid chain, in header order or not, and gives the leaf key', async () => {
    const x5c = await chainWithLeaf(leafExtensions({ eku: [ISSUER_EKU] }));
    const result = await validateChain(x5c, anchorPem, ISS, at(), { extendedKeyUsage: [ISSUER_EKU] });
    expect(result).toMatchObject({ ok: true, leafJwk: { kty: 'EC', crv: 'P-256' } });
    expect((await validateChain([x5c[0]!, der(root.certificate), x5c[1]!], anchorPem, ISS, at())).ok).toBe(true);
  });

  it('refuses a chain that leads to another anchor, or a forged signature under the issuer name', async () => {
    const other = await issue({ subject: 'CN=Other root', extensions: caExtensions() });
    expect(
      await validateChain(await chainWithLeaf(leafExtensions()), other.certificate.toString('pem'), ISS, at()),
    ).toEqual(refusal(/does not lead to a trusted anchor/));
    const forged = await issue({
      subject: 'CN=Issuer',
      issuer: intermediate,
      extensions: leafExtensions(),
      signingKeys: await newKeys(),
    });
    expect(await validateChain([der(forged.certificate), der(intermediate.certificate)], anchorPem, ISS, at())).toEqual(
      refusal(/certificate 0 of the x5c chain is not signed by its issuer/),
    );
  });

  it('refuses an issuing certificate that is not a CA', async () => {
    const x5c = await chainWithIntermediate([new x509.BasicConstraintsExtension(false, undefined, true)]);
    expect(await validateChain(x5c, anchorPem, ISS, at())).toEqual(refusal(/issuer of certificate 0 is not a CA/));
    const noBasic = await chainWithIntermediate([new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true)]);
    expect(await validateChain(noBasic, anchorPem, ISS, at())).toEqual(refusal(/is not a CA/));
  });

  it('refuses an issuing CA whose keyUsage lacks keyCertSign', async () => {
    const x5c = await chainWithIntermediate(caExtensions(undefined, x509.KeyUsageFlags.digitalSignature));
    expect(await validateChain(x5c, anchorPem, ISS, at())).toEqual(refusal(/keyUsage without keyCertSign/));
  });

  it('refuses a leaf whose keyUsage lacks digitalSignature, and accepts one without keyUsage', async () => {
    const x5c = await chainWithLeaf(leafExtensions({ usages: x509.KeyUsageFlags.keyEncipherment }));
    expect(await validateChain(x5c, anchorPem, ISS, at())).toEqual(refusal(/keyUsage without digitalSignature/));
    const bare = await chainWithLeaf([new x509.SubjectAlternativeNameExtension([{ type: 'url', value: ISS }])]);
    expect((await validateChain(bare, anchorPem, ISS, at())).ok).toBe(true);
  });

  it('refuses a path longer than a pathLenConstraint allows', async () => {
    // intermediate has pathLenConstraint 0: a further CA below it exceeds it.
    const sub = await issue({ subject: 'CN=Too deep', issuer: intermediate, extensions: caExtensions() });
    const leaf = await issue({ subject: 'CN=Issuer', issuer: sub, extensions: leafExtensions() });
    const x5c = [der(leaf.certificate), der(sub.certificate), der(intermediate.certificate)];
    expect(await validateChain(x5c, anchorPem, ISS, at())).toEqual(
      refusal(/path length constraint of certificate 2 is exceeded/),
    );
  });

  it('refuses a leaf without the configured extended key usage', async () => {
    const x5c = await chainWithLeaf(leafExtensions({ eku: [x509.ExtendedKeyUsage.serverAuth] }));
    expect(await validateChain(x5c, anchorPem, ISS, at(), { extendedKeyUsage: [ISSUER_EKU] })).toEqual(
      refusal(new RegExp(`lacks the extended key usage ${ISSUER_EKU.replaceAll('.', '\\.')}`)),
    );
    const none = await chainWithLeaf(leafExtensions());
    expect(await validateChain(none, anchorPem, ISS, at(), { extendedKeyUsage: [ISSUER_EKU] })).toEqual(
      refusal(/extended key usage/),
    );
    expect((await validateChain(none, anchorPem, ISS, at())).ok).toBe(true);
  });

  it('refuses an unknown critical extension anywhere in the path, and ignores an unknown non-critical one', async () => {
    const unknown = (critical: boolean) => new x509.Extension('1.3.6.1.4.1.99999.42', critical, new Uint8Array([5, 0]));
    const onLeaf = await chainWithLeaf(leafExtensions({ extra: [unknown(true)] }));
    expect(await validateChain(onLeaf, anchorPem, ISS, at())).toEqual(
      refusal(/leaf certificate has an unknown critical extension \(1\.3\.6\.1\.4\.1\.99999\.42\)/),
    );
    const onCa = await chainWithIntermediate([...caExtensions(), unknown(true)]);
    expect(await validateChain(onCa, anchorPem, ISS, at())).toEqual(refusal(/unknown critical extension/));
    const tolerated = await chainWithLeaf(leafExtensions({ extra: [unknown(false)] }));
    expect((await validateChain(tolerated, anchorPem, ISS, at())).ok).toBe(true);
  });

  it('refuses a subordinate name outside a CA name constraint', async () => {
    const permitIssuer = nameConstraints([new GeneralName({ uniformResourceIdentifier: 'issuer.example' })]);
    expect(
      (await validateChain(await chainWithIntermediate([...caExtensions(), permitIssuer]), anchorPem, ISS, at())).ok,
    ).toBe(true);
    const elsewhere = await chainWithIntermediate(
      [...caExtensions(), permitIssuer],
      leafExtensions({ san: 'https://elsewhere.example' }),
    );
    expect(await validateChain(elsewhere, anchorPem, 'https://elsewhere.example', at())).toEqual(
      refusal(/certificate 0 has a name outside the permitted ones by the name constraints of certificate 1/),
    );
    const excludeIssuer = nameConstraints([], [new GeneralName({ uniformResourceIdentifier: '.example' })]);
    expect(
      await validateChain(await chainWithIntermediate([...caExtensions(), excludeIssuer]), anchorPem, ISS, at()),
    ).toEqual(refusal(/an excluded name/));
  });

  it('applies name constraints of the DNS, IP and directory forms, and to intermediates below the CA', async () => {
    const dns = nameConstraints([new GeneralName({ dNSName: 'issuer.example' })]);
    const dnsLeaf = (name: string) => leafExtensions({ names: [{ type: 'dns', value: name }] });
    const inDns = await chainWithIntermediate([...caExtensions(), dns], dnsLeaf('api.issuer.example'));
    expect((await validateChain(inDns, anchorPem, ISS, at())).ok).toBe(true);
    const outDns = await chainWithIntermediate([...caExtensions(), dns], dnsLeaf('issuer.example.evil'));
    expect(await validateChain(outDns, anchorPem, ISS, at())).toEqual(refusal(/outside the permitted ones/));

    const ip = nameConstraints([], [new GeneralName({ iPAddress: '10.0.0.0/8' })]);
    const ipLeaf = leafExtensions({ names: [{ type: 'ip', value: '10.1.2.3' }] });
    expect(
      await validateChain(await chainWithIntermediate([...caExtensions(), ip], ipLeaf), anchorPem, ISS, at()),
    ).toEqual(refusal(/an excluded name/));

    const tessera = AsnConvert.parse(new x509.Name('O=Tessera').toArrayBuffer(), AsnName);
    // A directoryName constraint on the root binds the intermediate's and the leaf's subjects.
    const dnRoot = await issue({
      subject: 'O=Tessera, CN=DN root',
      extensions: [...caExtensions(1), nameConstraints([new GeneralName({ directoryName: tessera })])],
    });
    const within = await issue({ subject: 'O=Tessera, CN=Sub', issuer: dnRoot, extensions: caExtensions(0) });
    const leafIn = await issue({ subject: 'O=Tessera, CN=Issuer', issuer: within, extensions: leafExtensions() });
    const leafOut = await issue({ subject: 'O=Elsewhere, CN=Issuer', issuer: within, extensions: leafExtensions() });
    const dnAnchor = dnRoot.certificate.toString('pem');
    expect((await validateChain([der(leafIn.certificate), der(within.certificate)], dnAnchor, ISS, at())).ok).toBe(
      true,
    );
    expect(await validateChain([der(leafOut.certificate), der(within.certificate)], dnAnchor, ISS, at())).toEqual(
      refusal(/certificate 0 has a name outside the permitted ones by the name constraints of certificate 2/),
    );
    const outsideCa = await issue({ subject: 'O=Elsewhere, CN=Sub', issuer: dnRoot, extensions: caExtensions(0) });
    const leafBelow = await issue({ subject: 'O=Tessera, CN=Issuer', issuer: outsideCa, extensions: leafExtensions() });
    expect(await validateChain([der(leafBelow.certificate), der(outsideCa.certificate)], dnAnchor, ISS, at())).toEqual(
      refusal(/certificate 1 has a name outside the permitted ones by the name constraints of certificate 2/),
    );
  });

  it('keeps the clock skew: a certificate just outside its validity passes, one beyond the skew does not', async () => {
    const now = Date.now();
    const leafAt = async (dates: { notBefore?: Date; notAfter?: Date }) =>
      validateChain(await chainWithLeaf(leafExtensions(), dates), anchorPem, ISS, at());
    expect((await leafAt({ notBefore: new Date(now + 10_000) })).ok).toBe(true);
    expect((await leafAt({ notAfter: new Date(now - 10_000) })).ok).toBe(true);
    expect(await leafAt({ notBefore: new Date(now + 120_000) })).toEqual(
      refusal(/certificate 0 of the x5c chain is outside its validity period/),
    );
    expect(await leafAt({ notAfter: new Date(now - 120_000) })).toEqual(refusal(/outside its validity period/));
    const expiredCa = await issue({
      subject: 'CN=Expired CA',
      issuer: root,
      extensions: caExtensions(0),
      notAfter: new Date(now - 120_000),
    });
    const leaf = await issue({ subject: 'CN=Issuer', issuer: expiredCa, extensions: leafExtensions() });
    expect(await validateChain([der(leaf.certificate), der(expiredCa.certificate)], anchorPem, ISS, at())).toEqual(
      refusal(/certificate 1 of the x5c chain is outside its validity period/),
    );
  });

  it('keeps the leaf-names-iss rule and refuses a malformed header', async () => {
    const x5c = await chainWithLeaf(leafExtensions());
    expect(await validateChain(x5c, anchorPem, 'https://elsewhere.example', at())).toEqual(
      refusal(/does not name the credential issuer/),
    );
    expect(await validateChain([], anchorPem, ISS, at())).toEqual(refusal(/missing or malformed/));
    expect(await validateChain(['not base64 DER'], anchorPem, ISS, at())).toEqual(refusal(/cannot be parsed/));
  });
});

describe('trusted-issuer configuration', () => {
  it('takes extended key usage OIDs on an X.509 entry only', () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMA==\n-----END CERTIFICATE-----';
    expect(Value.Check(TrustedIssuerSchema, { kind: 'x509', value: pem, extendedKeyUsage: [ISSUER_EKU] })).toBe(true);
    expect(Value.Check(TrustedIssuerSchema, { kind: 'x509', value: pem })).toBe(true);
    expect(Value.Check(TrustedIssuerSchema, { kind: 'x509', value: pem, extendedKeyUsage: ['serverAuth'] })).toBe(
      false,
    );
    expect(Value.Check(TrustedIssuerSchema, { kind: 'x509', value: pem, extendedKeyUsage: [] })).toBe(false);
    expect(Value.Check(TrustedIssuerSchema, { kind: 'did', value: 'did:web:x', extendedKeyUsage: [ISSUER_EKU] })).toBe(
      false,
    );
  });
});

import { createPublicKey, randomBytes } from 'node:crypto';
import * as graphene from 'graphene-pk11';
import type { AlgorithmSpec, DigestAlgorithm, KeyKind } from '../domain/algorithms.js';
import { digestInfo } from './digest-info.js';
import { keyKindRefusal, type KeyProvider, type KeyType, type ProviderKey } from './key-provider.js';
import { spkiOf } from './public-keys.js';
import type { SignRequest } from './sign-request.js';

export interface Pkcs11ProviderConfig {
  libraryPath: string;
  tokenLabel: string;
  pin: string;
  tenants: string[];
}

/** The token's digest mechanisms: hash-then-sign is offered only for a hash the token itself knows. */
const DIGEST_MECHANISM: Record<DigestAlgorithm, string> = {
  SHA256: 'SHA256',
  SHA384: 'SHA384',
  SHA512: 'SHA512',
  SHA3_256: 'SHA3_256',
  SHA3_512: 'SHA3_512',
};
const PSS_MGF: Partial<Record<DigestAlgorithm, graphene.RsaMgf>> = {
  SHA256: graphene.RsaMgf.MGF1_SHA256,
  SHA384: graphene.RsaMgf.MGF1_SHA384,
  SHA512: graphene.RsaMgf.MGF1_SHA512,
};
const SIGN_MECHANISM: Record<AlgorithmSpec['scheme'], string> = {
  PKCS1: 'RSA_PKCS',
  PSS: 'RSA_PKCS_PSS',
  ECDSA: 'ECDSA',
  DSA: 'DSA',
};
const CURVE_OIDS: Record<string, string> = {
  '06082a8648ce3d030107': 'P-256',
  '06052b81040022': 'P-384',
  '06052b81040023': 'P-521',
};

/**
 * A PKCS #11 key provider through graphene-pk11 (issue 21 §4b): the token by label, logged in with the configured
 * PIN, keys found by CKA_ID (hex in `providerKid`; labels are not unique). Every signature is hash-then-sign: the
 * service hashes, the token signs the digest with its plain mechanism (CKM_RSA_PKCS over the DigestInfo,
 * CKM_RSA_PKCS_PSS, CKM_ECDSA, CKM_DSA), since tokens such as SoftHSM2 lack combined mechanisms like
 * CKM_ECDSA_SHA256. An algorithm whose sign mechanism or whose hash the token does not list is refused, naming both.
 * The module is opened on first use.
 */
export class Pkcs11KeyProvider implements KeyProvider {
  readonly kind = 'pkcs11' as const;
  readonly signs = true;
  private opened: { module: graphene.Module; session: graphene.Session; mechanisms: Set<string> } | null = null;

  constructor(
    readonly id: string,
    private readonly config: Pkcs11ProviderConfig,
  ) {}

  servesTenant(tenantId: string): boolean {
    return this.config.tenants.includes(tenantId);
  }

  async findKey(_unit: unknown, providerKid: string): Promise<ProviderKey | null> {
    if (!/^[0-9a-f]{2,128}$/i.test(providerKid)) return null;
    const { session } = this.open();
    const id = Buffer.from(providerKid, 'hex');
    const publics = session.find({ class: graphene.ObjectClass.PUBLIC_KEY, id });
    const privates = session.find({ class: graphene.ObjectClass.PRIVATE_KEY, id });
    if (publics.length === 0 || privates.length === 0) return null;
    return publicKeyOf(publics.items(0), providerKid.toLowerCase());
  }

  async findKeyByPublicKey(_unit: unknown, spki: Buffer): Promise<ProviderKey | null> {
    const { session } = this.open();
    const publics = session.find({ class: graphene.ObjectClass.PUBLIC_KEY });
    for (let i = 0; i < publics.length; i++) {
      const object = publics.items(i);
      const id = object.getAttribute({ id: null }).id as Buffer | undefined;
      if (!id || id.length === 0) continue;
      const key = publicKeyOf(object, id.toString('hex'));
      if (key && key.publicKeySpki.equals(spki) && (await this.findKey(null, key.providerKid))) return key;
    }
    return null;
  }

  refusal(key: ProviderKey, spec: AlgorithmSpec, request: Pick<SignRequest, 'hash'>): string | null {
    const kind = keyKindRefusal(key, spec);
    if (kind) return kind;
    const { mechanisms } = this.open();
    const mechanism = SIGN_MECHANISM[spec.scheme];
    if (!mechanisms.has(mechanism)) return `the token offers no CKM_${mechanism} mechanism`;
    if (!mechanisms.has(DIGEST_MECHANISM[request.hash]))
      return `the token offers no CKM_${DIGEST_MECHANISM[request.hash]} digest`;
    if (spec.scheme === 'PSS' && PSS_MGF[request.hash] === undefined)
      return `PKCS #11 defines no MGF1 with ${request.hash}`;
    return null;
  }

  async sign(_unit: unknown, key: ProviderKey, request: SignRequest): Promise<Buffer> {
    const { session } = this.open();
    const privates = session.find({
      class: graphene.ObjectClass.PRIVATE_KEY,
      id: Buffer.from(key.providerKid, 'hex'),
    });
    if (privates.length === 0) throw new Error(`PKCS #11 key ${key.providerKid} vanished`);
    const privateKey = privates.items(0).toType<graphene.PrivateKey>();
    const { spec, hash, digest } = request;
    switch (spec.scheme) {
      case 'PKCS1':
        return session.createSign('RSA_PKCS', privateKey).once(digestInfo(hash, digest));
      case 'PSS': {
        const params = new graphene.RsaPssParams(
          graphene.MechanismEnum[DIGEST_MECHANISM[hash] as keyof typeof graphene.MechanismEnum],
          PSS_MGF[hash]!,
          digest.length,
        );
        return session.createSign({ name: 'RSA_PKCS_PSS', params }, privateKey).once(digest);
      }
      case 'ECDSA':
      case 'DSA':
        // PKCS #11 answers r || s (§2.3.1, §2.2.2); CMS and node:crypto want DER.
        return rawToDer(session.createSign(spec.scheme, privateKey).once(digest));
    }
  }

  async generateKey(_unit: unknown, keyType: KeyType, providerKid: string): Promise<ProviderKey> {
    const { session } = this.open();
    const id = /^[0-9a-f]{2,128}$/i.test(providerKid) ? Buffer.from(providerKid, 'hex') : randomBytes(16);
    const common = { id, label: providerKid, token: true };
    if (keyType.startsWith('RSA')) {
      const keys = session.generateKeyPair(
        graphene.KeyGenMechanism.RSA,
        {
          ...common,
          keyType: graphene.KeyType.RSA,
          modulusBits: Number(keyType.slice(4)),
          publicExponent: Buffer.from([1, 0, 1]),
          verify: true,
        },
        { ...common, keyType: graphene.KeyType.RSA, sign: true, private: true, sensitive: true, extractable: false },
      );
      return publicKeyOf(keys.publicKey, id.toString('hex'))!;
    }
    if (keyType.startsWith('EC')) {
      const oid = Object.entries(CURVE_OIDS).find(([, curve]) => curve === `P-${keyType.slice(4)}`)![0];
      const keys = session.generateKeyPair(
        graphene.KeyGenMechanism.EC,
        { ...common, keyType: graphene.KeyType.EC, paramsEC: Buffer.from(oid, 'hex'), verify: true },
        { ...common, keyType: graphene.KeyType.EC, sign: true, private: true, sensitive: true, extractable: false },
      );
      return publicKeyOf(keys.publicKey, id.toString('hex'))!;
    }
    throw new UnsupportedKeyTypeError(keyType);
  }

  close(): void {
    if (!this.opened) return;
    try {
      this.opened.session.logout();
      this.opened.session.close();
    } finally {
      this.opened.module.finalize();
      this.opened = null;
    }
  }

  private open() {
    if (this.opened) return this.opened;
    const module = graphene.Module.load(this.config.libraryPath, this.id);
    module.initialize();
    try {
      const slots = module.getSlots(true);
      let slot: graphene.Slot | null = null;
      for (let i = 0; i < slots.length; i++) {
        const candidate = slots.items(i);
        if (candidate.getToken().label.trim() === this.config.tokenLabel) slot = candidate;
      }
      if (!slot) throw new Error(`no PKCS #11 token labelled ${this.config.tokenLabel}`);
      const session = slot.open(graphene.SessionFlag.SERIAL_SESSION | graphene.SessionFlag.RW_SESSION);
      session.login(this.config.pin, graphene.UserType.USER);
      const list = slot.getMechanisms();
      const mechanisms = new Set<string>();
      for (let i = 0; i < list.length; i++) mechanisms.add(list.items(i).name);
      this.opened = { module, session, mechanisms };
      return this.opened;
    } catch (error) {
      module.finalize();
      throw error;
    }
  }
}

export class UnsupportedKeyTypeError extends Error {
  constructor(readonly keyType: string) {
    super(`key type ${keyType} is not made by this provider`);
  }
}

function publicKeyOf(object: graphene.SessionObject, providerKid: string): ProviderKey | null {
  const key = object.toType<graphene.PublicKey>();
  const type = key.type;
  let kind: KeyKind;
  let jwk: Record<string, string>;
  if (type === graphene.KeyType.RSA) {
    const { modulus, publicExponent } = key.getAttribute({ modulus: null, publicExponent: null }) as {
      modulus: Buffer;
      publicExponent: Buffer;
    };
    kind = 'RSA';
    jwk = { kty: 'RSA', n: modulus.toString('base64url'), e: publicExponent.toString('base64url') };
  } else if (type === graphene.KeyType.EC) {
    // CKA_EC_PARAMS has the value of CKA_ECDSA_PARAMS: graphene answers it under the older name.
    const attributes = key.getAttribute({ paramsEC: null, pointEC: null }) as {
      paramsEC?: Buffer;
      paramsECDSA?: Buffer;
      pointEC: Buffer;
    };
    const paramsEC = attributes.paramsEC ?? attributes.paramsECDSA ?? Buffer.alloc(0);
    const pointEC = attributes.pointEC;
    const crv = CURVE_OIDS[paramsEC.toString('hex')];
    if (!crv) return null;
    // CKA_EC_POINT is the DER OCTET STRING of the uncompressed point 04 || x || y.
    const point = unwrapOctetString(pointEC);
    const size = (point.length - 1) / 2;
    kind = 'EC';
    jwk = {
      kty: 'EC',
      crv,
      x: point.subarray(1, 1 + size).toString('base64url'),
      y: point.subarray(1 + size).toString('base64url'),
    };
  } else return null;
  return { providerKid, keyKind: kind, publicKeySpki: spkiOf(createPublicKey({ key: jwk, format: 'jwk' })) };
}

function unwrapOctetString(der: Buffer): Buffer {
  if (der[0] !== 0x04) return der;
  let offset = 2;
  let length = der[1]!;
  if (length & 0x80) {
    const bytes = length & 0x7f;
    length = der.subarray(2, 2 + bytes).readUIntBE(0, bytes);
    offset = 2 + bytes;
  }
  return der.subarray(offset, offset + length);
}

function rawToDer(raw: Buffer): Buffer {
  const half = raw.length / 2;
  const int = (bytes: Buffer) => {
    let i = 0;
    while (i < bytes.length - 1 && bytes[i] === 0) i++;
    const trimmed = bytes.subarray(i);
    const body = trimmed[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed;
    return Buffer.concat([Buffer.from([0x02]), derLength(body.length), body]);
  };
  const seq = Buffer.concat([int(raw.subarray(0, half)), int(raw.subarray(half))]);
  return Buffer.concat([Buffer.from([0x30]), derLength(seq.length), seq]);
}

const derLength = (length: number) =>
  length < 0x80
    ? Buffer.from([length])
    : length < 0x100
      ? Buffer.from([0x81, length])
      : Buffer.from([0x82, length >> 8, length & 0xff]);

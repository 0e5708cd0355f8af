import { base64url, type JWK } from 'jose';
import {
  base64urlBytes,
  base64urlJson,
  ConfigError,
  signingInputBytes,
  type Database,
  type KeyManager,
  type Clock,
} from '@tessera/platform';
import type { BridgeConfig } from '../config.js';
import { signingCertificateStore } from '../storage/signing-certificate-store.js';
import { generateDevelopmentCertificate } from './dev-certificate.js';
import { createSigningRequest } from './signing-request.js';
import { dnsNames, holdsPublicKey, parsePemChain, x509HashOf, x5cOf } from './certificates.js';

/**
 * Signs request objects (RFC 9101; OID4VP §5) with the key manager's ES256 key (HAIP), and says which client_id the
 * signature supports (OID4VP §5.9.3):
 * - x509_san_dns: `x509_san_dns:<host>`, header `x5c`; the leaf names the publicBaseUrl host;
 * - x509_hash: `x509_hash:<base64url SHA-256 of the DER leaf>`, header `x5c`;
 * - decentralized_identifier: `decentralized_identifier:did:jwk:...`, header `kid` = `<did>#0`.
 * The certificate chain is configured, or (outside production) generated once per key version and shared through
 * the database, so that every replica presents the same certificate (and so the same x509_hash client id).
 */
export interface SignerIdentity {
  kid: string;
  clientId: string;
  header: Record<string, unknown>;
}

export class RequestSigner {
  private readonly identities = new Map<string, Promise<SignerIdentity>>();
  /** The request-signing key made present once; a failed attempt is forgotten, so the next call tries again. */
  private ensured: Promise<unknown> | null = null;

  constructor(
    private readonly deps: { keys: KeyManager; db: Database; clock: Clock; config: BridgeConfig; production: boolean },
  ) {}

  get host(): string {
    return new URL(this.deps.config.publicBaseUrl).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  }

  /** Whether a development certificate will be generated (a development default, announced at start). */
  get generatesCertificate(): boolean {
    return (
      this.deps.config.clientIdPrefix !== 'decentralized_identifier' &&
      !this.deps.config.requestSigning.certificateChainPem
    );
  }

  /** Refuses, at start, a configuration that cannot produce a valid signed request. */
  assertConfigured(): void {
    const { clientIdPrefix } = this.deps.config;
    if (this.deps.production && this.generatesCertificate) {
      throw new ConfigError(
        'bridge.requestSigning.certificateChainPem',
        `must be configured under NODE_ENV=production with clientIdPrefix ${clientIdPrefix}`,
      );
    }
    if (clientIdPrefix === 'x509_san_dns' && /^[\d.]+$|:/.test(this.host)) {
      throw new ConfigError('bridge.publicBaseUrl', 'x509_san_dns needs a DNS host name, not an IP address');
    }
  }

  /**
   * A PKCS#10 request for the active key (created if absent), signed through the key manager, for a CA to certify:
   * the way to `requestSigning.certificateChainPem` under production (docs/deployment.md). By default the subject is
   * `CN=<publicBaseUrl host>` and the subjectAltName that host, as x509_san_dns requires.
   */
  async certificateRequest(options: { subject?: string; altNames?: readonly string[] } = {}): Promise<string> {
    const { keyAlias } = this.deps.config.requestSigning;
    await this.deps.keys.ensure(keyAlias, 'ES256');
    const jwk = await this.deps.keys.publicJwk(keyAlias);
    return createSigningRequest({
      publicJwk: jwk,
      subject: options.subject ?? `CN=${this.host}`,
      altNames: options.altNames ?? [this.host],
      sign: async (data) => {
        const signature = await this.deps.keys.sign(keyAlias, data);
        if (signature.kid !== jwk.kid) throw new Error('the request-signing key rotated while its request was signed');
        return signature.signature;
      },
    });
  }

  /**
   * The active key's identity: client_id and the JOSE header members that prove it. The key is ensured once per
   * signer (ensure reads the database every time); after that the key manager's active version, cached and
   * re-read at its recheck interval, follows rotations.
   */
  async current(): Promise<SignerIdentity> {
    const { keyAlias } = this.deps.config.requestSigning;
    if (!this.ensured)
      this.ensured = this.deps.keys.ensure(keyAlias, 'ES256').catch((error: unknown) => {
        this.ensured = null;
        throw error;
      });
    await this.ensured;
    const jwk = await this.deps.keys.publicJwk(keyAlias);
    return this.identityFor(jwk);
  }

  /**
   * A compact JWS with `typ` and the identity's header, signed by the key manager, over the payload `build` makes
   * for that identity (its client_id depends on the key). Built again if the key rotates in between.
   */
  async sign<P extends Record<string, unknown>>(
    build: (identity: SignerIdentity) => P,
    typ: string,
  ): Promise<{ jwt: string; identity: SignerIdentity; payload: P }> {
    const { keyAlias } = this.deps.config.requestSigning;
    for (let attempt = 0; attempt < 3; attempt++) {
      const identity = await this.current();
      const payload = build(identity);
      const header = { alg: 'ES256', typ, ...identity.header };
      const input = `${base64urlJson(header)}.${base64urlJson(payload)}`;
      const signature = await this.deps.keys.sign(keyAlias, signingInputBytes(input));
      if (signature.kid === identity.kid)
        return { jwt: `${input}.${base64urlBytes(signature.signature)}`, identity, payload };
    }
    throw new Error('the request-signing key kept rotating while signing');
  }

  private identityFor(jwk: JWK): Promise<SignerIdentity> {
    const kid = jwk.kid!;
    let identity = this.identities.get(kid);
    if (!identity) {
      identity = this.build(jwk).catch((error: unknown) => {
        this.identities.delete(kid);
        throw error;
      });
      this.identities.set(kid, identity);
    }
    return identity;
  }

  private async build(jwk: JWK): Promise<SignerIdentity> {
    const kid = jwk.kid!;
    const { clientIdPrefix } = this.deps.config;
    if (clientIdPrefix === 'decentralized_identifier') {
      const did = `did:jwk:${base64url.encode(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }))}`;
      return { kid, clientId: `decentralized_identifier:${did}`, header: { kid: `${did}#0` } };
    }
    const pem = this.deps.config.requestSigning.certificateChainPem ?? (await this.developmentCertificate(jwk));
    const chain = parsePemChain(pem);
    const leaf = chain[0];
    if (!leaf) throw new ConfigError('bridge.requestSigning.certificateChainPem', 'holds no PEM certificate');
    if (!(await holdsPublicKey(leaf, jwk))) {
      throw new ConfigError(
        'bridge.requestSigning.certificateChainPem',
        `the leaf certificate does not hold the public key of ${this.deps.config.requestSigning.keyAlias} ` +
          '(npm run request-signing -- csr makes the request to certify: docs/deployment.md)',
      );
    }
    if (clientIdPrefix === 'x509_san_dns') {
      if (!dnsNames(leaf).includes(this.host)) {
        throw new ConfigError(
          'bridge.requestSigning.certificateChainPem',
          `the leaf certificate names no DNS subjectAltName equal to the publicBaseUrl host ${this.host}`,
        );
      }
      return { kid, clientId: `x509_san_dns:${this.host}`, header: { x5c: x5cOf(chain) } };
    }
    return { kid, clientId: `x509_hash:${x509HashOf(leaf)}`, header: { x5c: x5cOf(chain) } };
  }

  private async developmentCertificate(jwk: JWK): Promise<string> {
    const kid = jwk.kid!;
    const stored = await this.deps.db.withPlatform((sql) => signingCertificateStore.get(sql, kid));
    if (stored && dnsNames(parsePemChain(stored)[0]!).includes(this.host)) return stored;
    const pem = await generateDevelopmentCertificate({
      publicJwk: jwk,
      host: this.host,
      // A little in the past, so that a wallet whose clock runs behind still accepts it.
      notBefore: new Date(this.deps.clock.now().getTime() - 3_600_000),
      days: this.deps.config.requestSigning.generatedCertificateDays,
      sign: async (data) => {
        const signature = await this.deps.keys.sign(this.deps.config.requestSigning.keyAlias, data);
        if (signature.kid !== kid)
          throw new Error('the request-signing key rotated while its certificate was generated');
        return signature.signature;
      },
    });
    if (stored) {
      // The host changed: the stored certificate names another one. Replace it for this key version.
      await this.deps.db.withPlatform((sql) => signingCertificateStore.remove(sql, kid));
    }
    return this.deps.db.withPlatform((sql) => signingCertificateStore.putIfAbsent(sql, kid, pem));
  }
}

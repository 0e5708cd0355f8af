import type { JWK } from 'jose';
import { systemClock, type Clock } from '../common/clock.js';
import type { CredentialFormat, IssuedCredential } from '../common/credential-format.js';
import { createIssuerSigner, type IssuerKeyReference } from './create-issuer-signer.js';
import { createStatusRegistry, type CredentialStatus } from './create-status-registry.js';
import { issueJwtVc, type IssueJwtVcOptions } from './issue-jwt-vc.js';
import { issueSdJwtVc, type IssueSdJwtVcOptions } from './issue-sd-jwt-vc.js';
import { loadIssuerMaterial } from './load-issuer-material.js';
import { serveStatusLists, type StatusListServer } from './serve-status-lists.js';
import { signStatusListCredential, type StatusPurpose } from './sign-status-list-credential.js';
import { signTokenStatusList } from './sign-token-status-list.js';
import type { StatusListFault } from './status-list-fault.js';

export interface CreateTestIssuerOptions {
  /** Where the key, the X.509 chain and the status list state are kept; in memory when omitted. */
  dataDir?: string;
  /**
   * Base URL the credentials' status entries point at, e.g. http://127.0.0.1:8500. When omitted, the URL of the
   * status list server started by `statusListServer()` is used, so start it before issuing.
   */
  statusBaseUrl?: string;
  /** How credentials and status lists name the issuer key by default; `did` (did:jwk + kid) unless set. */
  issuerId?: IssuerKeyReference;
  /** The issuer URI written into the leaf certificate SAN and used as `iss` with `x5c`. */
  x509IssuerUri?: string;
  /** Default 300 seconds (Token Status List §5.1 `ttl`). */
  statusListTtlSeconds?: number;
  /** Lifetime (`exp - iat`) of each served status list; default 3600 seconds. */
  statusListValiditySeconds?: number;
  clock?: Clock;
}

export interface StatusListUris {
  /** Token Status List (SD-JWT VC `status.status_list.uri`). */
  token: string;
  /** StatusList2021 credentials for jwt_vc_json. */
  revocation: string;
  suspension: string;
}

export interface TestIssuer {
  /** The issuer's did:jwk; `iss` of everything it signs with the `did` key reference. */
  readonly issuerId: string;
  /** `kid` used in headers: the did:jwk verification method `#0`. */
  readonly keyId: string;
  readonly publicJwk: JWK;
  readonly x509: {
    issuerUri: string;
    caCertificatePem: string;
    leafCertificatePem: string;
    /** `x5c` header value: the leaf only. */
    x5c: string[];
    /** Where the CA PEM was written, when the issuer has a data directory. */
    caCertificatePath?: string;
  };
  readonly statusBaseUrl: string | undefined;
  statusListUris(): StatusListUris;
  /** The issuer's public key set, the key carrying `kid` = keyId. */
  jwks(): { keys: JWK[] };
  issueSdJwtVc(options: IssueSdJwtVcOptions): Promise<IssuedCredential>;
  issueJwtVc(options: IssueJwtVcOptions): Promise<IssuedCredential>;
  revoke(format: CredentialFormat, index: number): Promise<void>;
  suspend(format: CredentialFormat, index: number): Promise<void>;
  /** Back to valid. */
  reinstate(format: CredentialFormat, index: number): Promise<void>;
  statusOf(format: CredentialFormat, index: number): Promise<CredentialStatus>;
  /** The Token Status List JWT as the server would serve it now. */
  signTokenStatusList(): Promise<string>;
  /** The StatusList2021 credential JWT as the server would serve it now. */
  signStatusListCredential(purpose: StatusPurpose): Promise<string>;
  /** Makes the served status lists faulty (or correct again with undefined). */
  setStatusListFault(fault: StatusListFault | undefined): void;
  /** Starts the status list server on 127.0.0.1 (port 0 = any free port). */
  statusListServer(options?: { port?: number; host?: string }): Promise<StatusListServer>;
  /** Stops the status list servers this issuer started. */
  close(): Promise<void>;
}

const DEFAULT_X509_ISSUER_URI = 'https://issuer.test-wallet.tessera.example';

/** A credential issuer for tests and development: one ES256 key, a did:jwk and an X.509 chain, two status lists. */
export async function createTestIssuer(options: CreateTestIssuerOptions = {}): Promise<TestIssuer> {
  const clock = options.clock ?? systemClock;
  const { material, caCertificatePath } = await loadIssuerMaterial({
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    x509IssuerUri: options.x509IssuerUri ?? DEFAULT_X509_ISSUER_URI,
    clock,
  });
  const signer = createIssuerSigner(material);
  const keyReference = options.issuerId ?? 'did';
  const registry = createStatusRegistry(options.dataDir);
  const ttlSeconds = options.statusListTtlSeconds ?? 300;
  const validitySeconds = options.statusListValiditySeconds ?? 3600;
  const servers: StatusListServer[] = [];
  let statusBaseUrl = options.statusBaseUrl?.replace(/\/+$/, '');
  let fault: StatusListFault | undefined;

  const statusListUris = (): StatusListUris => {
    if (!statusBaseUrl) throw new Error('no status base URL: pass statusBaseUrl or start statusListServer() first');
    return {
      token: `${statusBaseUrl}/status-lists/token/1`,
      revocation: `${statusBaseUrl}/status-lists/w3c/revocation`,
      suspension: `${statusBaseUrl}/status-lists/w3c/suspension`,
    };
  };
  const tokenList = () =>
    signTokenStatusList({
      signer,
      keyReference,
      registry,
      uri: statusListUris().token,
      ttlSeconds,
      validitySeconds,
      clock,
      fault,
    });
  const listCredential = (purpose: StatusPurpose) =>
    signStatusListCredential({
      signer,
      keyReference,
      registry,
      uri: statusListUris()[purpose],
      purpose,
      validitySeconds,
      clock,
      fault,
    });

  return {
    issuerId: signer.did,
    keyId: signer.keyId,
    publicJwk: signer.publicJwk,
    x509: {
      issuerUri: material.x509IssuerUri,
      caCertificatePem: material.certificateAuthority.certificatePem,
      leafCertificatePem: material.leafCertificatePem,
      x5c: signer.x5c,
      ...(caCertificatePath ? { caCertificatePath } : {}),
    },
    get statusBaseUrl() {
      return statusBaseUrl;
    },
    statusListUris,
    jwks: () => ({ keys: [{ ...signer.publicJwk, kid: signer.keyId, use: 'sig', alg: 'ES256' }] }),
    issueSdJwtVc: (issueOptions) =>
      issueSdJwtVc(
        {
          signer,
          defaultKeyReference: keyReference,
          clock,
          statusReference: (idx) => ({ idx, uri: statusListUris().token }),
          allocateIndex: () => registry.allocate('dc+sd-jwt'),
        },
        issueOptions,
      ),
    issueJwtVc: (issueOptions) =>
      issueJwtVc(
        {
          signer,
          defaultKeyReference: keyReference,
          clock,
          statusListUri: (purpose) => statusListUris()[purpose],
          allocateIndex: () => registry.allocate('jwt_vc_json'),
        },
        issueOptions,
      ),
    revoke: (format, index) => registry.set(format, index, 'revoked'),
    suspend: (format, index) => registry.set(format, index, 'suspended'),
    reinstate: (format, index) => registry.set(format, index, 'valid'),
    statusOf: (format, index) => registry.get(format, index),
    signTokenStatusList: tokenList,
    signStatusListCredential: listCredential,
    setStatusListFault: (next) => {
      fault = next;
    },
    statusListServer: async (serverOptions = {}) => {
      const server = await serveStatusLists({
        ...serverOptions,
        // The lists' freshness as HTTP says it (RFC 9111), the same as the Token Status List `ttl`.
        cacheControl: `max-age=${ttlSeconds}`,
        unavailable: () => fault === 'unavailable',
        routes: () => {
          const uris = statusListUris();
          return [
            { path: new URL(uris.token).pathname, contentType: 'application/statuslist+jwt', render: tokenList },
            {
              path: new URL(uris.revocation).pathname,
              contentType: 'application/vc+jwt',
              render: () => listCredential('revocation'),
            },
            {
              path: new URL(uris.suspension).pathname,
              contentType: 'application/vc+jwt',
              render: () => listCredential('suspension'),
            },
          ];
        },
      });
      statusBaseUrl ??= server.url;
      servers.push(server);
      return server;
    },
    close: async () => {
      await Promise.all(servers.splice(0).map((server) => server.close()));
    },
  };
}

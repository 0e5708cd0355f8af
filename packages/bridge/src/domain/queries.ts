import { ConfigError } from '@tessera/platform';
import type { BridgeConfig, PresentationQueryConfig, TrustedIssuerConfig } from '../config.js';

/**
 * Named presentation queries (000 §2.2), normalized from configuration, and the DCQL query (OID4VP §6) each one
 * becomes in the request object.
 */
export type CredentialFormat = 'dc+sd-jwt' | 'jwt_vc_json';

/** A DCQL claims path (OID4VP §7): names, array indexes, `null` for every element. */
export type ClaimPath = (string | number | null)[];

export interface QueryClaim {
  /** Position in the query's claim list; the DCQL claim id. */
  id: string;
  jsonPath: string;
  path: ClaimPath;
  /** Name of the claim in the completion result: the last named segment of the path. */
  name: string;
  required: boolean;
}

export type TrustedIssuer =
  | { kind: 'did'; value: string }
  | { kind: 'jwk'; value: string }
  /** An X.509 anchor; `extendedKeyUsage`: OIDs every leaf under it must carry (issue 13 §5). */
  | { kind: 'x509'; value: string; extendedKeyUsage?: readonly string[] };

export interface CredentialQuery {
  id: string;
  format: CredentialFormat;
  type: string;
  claims: QueryClaim[];
  trustedIssuers: TrustedIssuer[];
}

/** OID4VP §6.2: the vp_token answers one option (credential query ids) of every required set. */
export interface CredentialSet {
  options: string[][];
  required: boolean;
}

export interface PresentationQuery {
  id: string;
  credentials: CredentialQuery[];
  /** Absent: every credential query must be answered. */
  credentialSets?: CredentialSet[];
}

export const WALLET_LOGIN_QUERY_ID = 'wallet-login';
/** Credential query id of the wallet login's alternative credential (DCQL credential_sets). */
export const WALLET_LOGIN_ALTERNATIVE_ID = 'wallet-login-alternative';
/** The W3C type the development profile offers beside the SD-JWT VC (the test wallet's `jwt_vc_json` credential). */
export const DEVELOPMENT_W3C_TYPE = 'TesseraIdentityCredential';

/** Reads a JSONPath of the subset used for claims: `$.a.b`, `$['a']`, `$.a[0]`, `$.a[*]`. */
export function parseClaimPath(jsonPath: string): ClaimPath | null {
  if (!jsonPath.startsWith('$')) return null;
  const path: ClaimPath = [];
  let rest = jsonPath.slice(1);
  while (rest.length > 0) {
    let m: RegExpExecArray | null;
    if ((m = /^\.([A-Za-z_][A-Za-z0-9_$@-]*)/.exec(rest))) path.push(m[1]!);
    else if ((m = /^\['([^'\\]+)'\]/.exec(rest)) || (m = /^\["([^"\\]+)"\]/.exec(rest))) path.push(m[1]!);
    else if ((m = /^\[(\d{1,6})\]/.exec(rest))) path.push(Number(m[1]));
    else if ((m = /^\[\*\]/.exec(rest))) path.push(null);
    else return null;
    rest = rest.slice(m[0].length);
  }
  return path.length > 0 && typeof path[0] === 'string' ? path : null;
}

export function normalizeFormat(format: string): CredentialFormat {
  return format === 'jwt_vc' ? 'jwt_vc_json' : (format as CredentialFormat);
}

/** A trusted issuer given as a plain string is read by its shape. */
export function normalizeTrustedIssuer(entry: TrustedIssuerConfig, key: string): TrustedIssuer {
  if (typeof entry !== 'string')
    return entry.kind === 'x509' && entry.extendedKeyUsage
      ? { kind: 'x509', value: entry.value.trim(), extendedKeyUsage: [...entry.extendedKeyUsage] }
      : ({ kind: entry.kind, value: entry.value.trim() } as TrustedIssuer);
  const value = entry.trim();
  if (value.startsWith('did:')) return { kind: 'did', value };
  if (value.startsWith('{')) return { kind: 'jwk', value };
  if (value.startsWith('-----BEGIN CERTIFICATE-----')) return { kind: 'x509', value };
  throw new ConfigError(key, 'a trusted issuer must be a DID, a JWK (JSON) or a PEM certificate');
}

export function normalizeQuery(id: string, query: PresentationQueryConfig, key: string): PresentationQuery {
  const seen = new Set<string>();
  const credentials = query.credentials.map((c, ci): CredentialQuery => {
    if (seen.has(c.id)) throw new ConfigError(`${key}.credentials.${ci}.id`, 'credential query ids must be unique');
    seen.add(c.id);
    const claims = c.claims.map((claim, i): QueryClaim => {
      const path = parseClaimPath(claim.path);
      if (!path)
        throw new ConfigError(
          `${key}.credentials.${ci}.claims.${i}.path`,
          "is not a supported JSONPath (use $.a.b, $['a'], $.a[0])",
        );
      const name = [...path].reverse().find((s): s is string => typeof s === 'string')!;
      return { id: String(i), jsonPath: claim.path, path, name, required: claim.required };
    });
    return {
      id: c.id,
      format: normalizeFormat(c.format),
      type: c.type,
      claims,
      trustedIssuers: c.trusted_issuers.map((t, i) =>
        normalizeTrustedIssuer(t, `${key}.credentials.${ci}.trusted_issuers.${i}`),
      ),
    };
  });
  if (!query.credential_sets) return { id, credentials };
  const credentialSets = query.credential_sets.map((set, si): CredentialSet => {
    set.options.forEach((option, oi) => {
      for (const ref of option)
        if (!seen.has(ref))
          throw new ConfigError(`${key}.credential_sets.${si}.options.${oi}`, `names no credential query: ${ref}`);
    });
    return { options: set.options.map((o) => [...o]), required: set.required };
  });
  return { id, credentials, credentialSets };
}

/**
 * The reference query (000 §2.2): the service claim and eduperson_principal_name required, three optional. With an
 * alternative, two credential queries of the same claims and issuers and one credential set whose two options each
 * name one of them (OID4VP §6.2): the wallet answers with whichever it holds.
 */
export function walletLoginQuery(
  config: BridgeConfig['walletLogin'],
  serviceClaim: string,
  alternative: { format: string; type: string } | undefined = config.alternative,
): PresentationQueryConfig {
  const credential = (id: string, rawFormat: string, type: string) => {
    const format = normalizeFormat(rawFormat);
    const prefix = format === 'jwt_vc_json' ? '$.credentialSubject.' : '$.';
    const claim = (name: string, required: boolean) => ({ path: `${prefix}${name}`, required });
    return {
      id,
      format,
      type,
      claims: [
        claim(serviceClaim, true),
        claim('eduperson_principal_name', true),
        claim('email', false),
        claim('given_name', false),
        claim('family_name', false),
      ],
      trusted_issuers: config.trustedIssuers,
    };
  };
  const primary = credential(WALLET_LOGIN_QUERY_ID, config.format, config.type);
  if (!alternative) return { credentials: [primary] };
  return {
    credentials: [primary, credential(WALLET_LOGIN_ALTERNATIVE_ID, alternative.format, alternative.type)],
    credential_sets: [{ options: [[WALLET_LOGIN_QUERY_ID], [WALLET_LOGIN_ALTERNATIVE_ID]], required: true }],
  };
}

/**
 * The development profile's alternative when none is configured: the other format, with the test wallet's type for
 * jwt_vc_json (`npm run wallet -- --format jwt_vc_json`), so the README walkthrough works with either.
 */
export function developmentAlternative(config: BridgeConfig['walletLogin']): { format: string; type: string } {
  return normalizeFormat(config.format) === 'dc+sd-jwt'
    ? { format: 'jwt_vc_json', type: DEVELOPMENT_W3C_TYPE }
    : { format: 'dc+sd-jwt', type: 'urn:tessera:vct:wallet-login' };
}

/** Every configured query, with `wallet-login` built from `walletLogin` unless configured by name. */
export function resolveQueries(
  config: BridgeConfig,
  serviceClaim: string,
  options: { development?: boolean } = {},
): Map<string, PresentationQuery> {
  const login = config.walletLogin;
  const alternative = login.alternative ?? (options.development ? developmentAlternative(login) : undefined);
  const raw: Record<string, PresentationQueryConfig> = {
    [WALLET_LOGIN_QUERY_ID]: walletLoginQuery(login, serviceClaim, alternative),
    ...config.queries,
  };
  return new Map(
    Object.entries(raw).map(([id, q]) => [
      id,
      normalizeQuery(
        id,
        q,
        id === WALLET_LOGIN_QUERY_ID && !config.queries[id] ? 'bridge.walletLogin' : `bridge.queries.${id}`,
      ),
    ]),
  );
}

/**
 * The DCQL query of the request object (OID4VP §6.1). Optional claims are expressed by claim_sets (§6.4.1): the
 * wallet is asked for all claims first, the required ones at least. Trusted issuers stay on the server: they are
 * enforced on the response, whatever the wallet chose.
 */
export function toDcqlQuery(query: PresentationQuery): Record<string, unknown> {
  return {
    ...(query.credentialSets
      ? { credential_sets: query.credentialSets.map((set) => ({ options: set.options, required: set.required })) }
      : {}),
    credentials: query.credentials.map((c) => {
      const required = c.claims.filter((claim) => claim.required).map((claim) => claim.id);
      const all = c.claims.map((claim) => claim.id);
      return {
        id: c.id,
        format: c.format,
        meta: c.format === 'dc+sd-jwt' ? { vct_values: [c.type] } : { type_values: [[c.type]] },
        claims: c.claims.map((claim) => ({ id: claim.id, path: claim.path })),
        // All claims first, then the required ones; with none required, any single claim will do.
        ...(required.length < all.length
          ? { claim_sets: required.length > 0 ? [all, required] : [all, ...all.map((id) => [id])] }
          : {}),
      };
    }),
  };
}

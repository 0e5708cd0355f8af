import type { DcqlQuery } from 'dcql';

/**
 * The server-side DCQL re-check (OID4VP §14.11), compiled once per configured query. dcql's
 * `DcqlPresentationResult.fromDcqlPresentation` builds its valibot claim and meta parsers anew on every call (tens
 * of microseconds per presentation); the queries are configuration, so the same decision is made here by plain
 * functions built once. It answers what dcql's `can_be_satisfied` answers for the subset of DCQL the bridge's
 * queries use (toDcqlQuery: claims by path, claim_sets, credential_sets, vct_values and type_values); a query
 * outside that subset compiles to null and is left to dcql. dcql-matcher.test.ts checks the two agree.
 */
export type PresentationMatcher = (presented: Readonly<Record<string, readonly unknown[]>>) => boolean;

type Check = (value: unknown) => boolean;
type CredentialQuery = DcqlQuery['credentials'][number];
type ClaimQuery = NonNullable<CredentialQuery['claims']>[number];

/** valibot's `object` as dcql uses it: any non-null object (arrays too), the member looked up with `in`. */
const isObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object';
const member = (value: Record<string, unknown>, key: string): { found: boolean; value?: unknown } =>
  key in value ? { found: true, value: value[key] } : { found: false };

/**
 * One claims path in presentation mode (dcql getJsonClaimParser with `presentation: true`): a name selects a
 * member of an object; an index or `null` needs an array with an element matching the rest of the path (in a
 * presentation the wallet may have removed the elements before the index); the last value is defined. Where dcql
 * fails with an exception (an index into an empty array), the claim does not match.
 */
function compilePath(path: readonly (string | number | null)[], index = 0): Check {
  const segment = path[index];
  const rest: Check =
    index === path.length - 1 ? (value) => value !== null && value !== undefined : compilePath(path, index + 1);
  if (typeof segment === 'string') {
    return (value) => {
      if (!isObject(value)) return false;
      const found = member(value, segment);
      return found.found && rest(found.value);
    };
  }
  if (typeof segment === 'number') return (value) => Array.isArray(value) && value.some(rest);
  // dcql passes `null` over an empty array (no element fails); the bridge's required-claim check (claims.ts) has
  // already refused a required claim there, and the same answer keeps the two deciders equal.
  return (value) => Array.isArray(value) && (value.length === 0 || value.some(rest));
}

function compileClaims(query: CredentialQuery): Check | null {
  const claims = query.claims as readonly ClaimQuery[] | undefined;
  if (!claims) return () => true;
  const checks = new Map<string | number, Check>();
  const all: Check[] = [];
  for (const [i, claim] of claims.entries()) {
    // Value matching and mdoc namespaces are not used by the bridge's queries: dcql decides those.
    if (!('path' in claim) || ('values' in claim && claim.values !== undefined)) return null;
    const check = compilePath(claim.path as (string | number | null)[]);
    all.push(check);
    checks.set(claim.id ?? i, check);
  }
  const claimSets = query.claim_sets as readonly (readonly string[])[] | undefined;
  // dcql: the credential matches when every claim of some claim set (of all claims, without claim_sets) matches.
  const sets: Check[][] = [];
  for (const set of claimSets ?? [null]) {
    if (!set) {
      sets.push(all);
      continue;
    }
    const resolved = set.map((id) => checks.get(id));
    // A claim set naming no claim of the query: dcql reports the error.
    if (resolved.some((check) => !check)) return null;
    sets.push(resolved as Check[]);
  }
  return (claimsValue) => sets.some((set) => set.every((check) => check(claimsValue)));
}

/** dcql getMetaParser: the format, the type (vct or W3C types) and the holder binding the query requires. */
function compileMeta(query: CredentialQuery): Check | null {
  const binding = (credential: Record<string, unknown>) => {
    const found = member(credential, 'cryptographic_holder_binding');
    return query.require_cryptographic_holder_binding === false
      ? found.found && typeof found.value === 'boolean'
      : found.found && found.value === true;
  };
  const format = (credential: Record<string, unknown>) => {
    const found = member(credential, 'credential_format');
    return found.found && found.value === query.format;
  };
  if (query.format === 'dc+sd-jwt') {
    const vctValues = (query.meta as { vct_values?: string[] } | undefined)?.vct_values;
    return (credential) => {
      if (!isObject(credential) || !format(credential) || !binding(credential)) return false;
      const vct = member(credential, 'vct');
      if (!vct.found) return false;
      return vctValues ? vctValues.includes(vct.value as string) : typeof vct.value === 'string';
    };
  }
  if (query.format === 'jwt_vc_json') {
    const typeValues = (query.meta as { type_values?: string[][] } | undefined)?.type_values;
    if (!typeValues) return null;
    return (credential) => {
      if (!isObject(credential) || !format(credential) || !binding(credential)) return false;
      const type = member(credential, 'type');
      if (!type.found || !Array.isArray(type.value)) return false;
      const types = type.value as unknown[];
      return typeValues.some((subset) => subset.every((t) => types.includes(t)));
    };
  }
  return null;
}

/** The matcher of a parsed DCQL query, or null when the query uses what only dcql decides. */
export function compilePresentationMatcher(query: DcqlQuery): PresentationMatcher | null {
  const credentials = new Map<string, { query: CredentialQuery; claims: Check; meta: Check }>();
  for (const credential of query.credentials) {
    if (credential.trusted_authorities) return null;
    const claims = compileClaims(credential);
    const meta = compileMeta(credential);
    if (!claims || !meta) return null;
    credentials.set(credential.id, { query: credential, claims, meta });
  }
  const credentialSets = query.credential_sets;
  return (presented) => {
    const succeeded = new Set<string>();
    for (const [id, list] of Object.entries(presented)) {
      const compiled = credentials.get(id);
      // dcql throws for an unknown id, an empty list and several presentations without `multiple`: not satisfied.
      if (!compiled || list.length === 0 || (!compiled.query.multiple && list.length > 1)) return false;
      // dcql: satisfied only when every presented credential matches (no failed credentials).
      for (const credential of list) {
        if (!compiled.meta(credential) || !compiled.claims((credential as Record<string, unknown>).claims))
          return false;
      }
      succeeded.add(id);
    }
    if (credentialSets) {
      return credentialSets.every(
        (set) => set.required === false || set.options.some((option) => option.every((id) => succeeded.has(id))),
      );
    }
    return query.credentials.every((c) => succeeded.has(c.id));
  };
}

import { DcqlPresentationResult, DcqlQuery } from 'dcql';
import { toDcqlQuery, type ClaimPath, type PresentationQuery } from '../queries.js';
import { CheckFailure, fail, pass, type CheckResult } from './check.js';
import { missingRequiredClaims, presentedClaims } from './claims.js';
import type { PresentationContext, VerifiedCredential } from './credential.js';
import { compilePresentationMatcher, type PresentationMatcher } from './dcql-matcher.js';
import { isObjectValue, jwkThumbprintUri, sha256Base64url } from './jws.js';
import { verifyJwtVcPresentation } from './jwt-vc.js';
import { verifySdJwtPresentation } from './sd-jwt.js';
import type { StatusChecker } from './status.js';

/**
 * Verification of a whole vp_token against the session's query (OID4VP §8.6 and §14; security checklist):
 * the DCQL structure first (every credential query answered, no unknown id: @openid4vc/openid4vp does not check
 * it), replay, then each presentation by format, its status, and the DCQL query again on the server with dcql
 * (`can_be_satisfied`, OID4VP §14.11). Stops at the first failed check.
 */
export interface VerificationInput {
  vpToken: unknown;
  query: PresentationQuery;
  clientId: string;
  nonce: string;
  now: Date;
  kbJwtMaxAgeSeconds: number;
  clockSkewSeconds: number;
}

export interface VerificationDeps {
  status: StatusChecker;
  /** Digests already accepted in some session. */
  usedDigests(digests: string[]): Promise<string[]>;
}

export type VerificationOutcome =
  | {
      ok: true;
      checks: CheckResult[];
      credentials: VerifiedCredential[];
      claims: Record<string, unknown>;
      digests: string[];
    }
  | { ok: false; checks: CheckResult[]; failure: CheckResult };

/**
 * The DCQL query of each configured query, parsed once, and its compiled matcher (queries are configuration: they
 * do not change). dcql builds its claim parsers on every run; the matcher is built once (dcql-matcher.ts).
 */
interface CompiledQuery {
  dcqlQuery: DcqlQuery;
  matcher: PresentationMatcher | null;
}
const dcqlQueries = new WeakMap<PresentationQuery, CompiledQuery>();
function compiledDcqlQuery(query: PresentationQuery): CompiledQuery {
  let compiled = dcqlQueries.get(query);
  if (!compiled) {
    const dcqlQuery = DcqlQuery.parse(toDcqlQuery(query) as DcqlQuery.Input);
    compiled = { dcqlQuery, matcher: compilePresentationMatcher(dcqlQuery) };
    dcqlQueries.set(query, compiled);
  }
  return compiled;
}

/** OID4VP §14.11: whether the presented credentials (by credential query id) satisfy the query. */
function satisfiesQuery(query: PresentationQuery, presented: Record<string, unknown[]>): boolean {
  const { dcqlQuery, matcher } = compiledDcqlQuery(query);
  if (matcher) return matcher(presented);
  return DcqlPresentationResult.fromDcqlPresentation(presented as never, { dcqlQuery }).can_be_satisfied;
}

/**
 * The credential as dcql sees it, its claims reduced to the paths the query names: what the query matches on is
 * unchanged, and dcql does not validate (at some cost) the rest of the credential, e.g. its `cnf` key.
 */
function dcqlView(credential: VerifiedCredential, query: PresentationQuery): Record<string, unknown> {
  const claimQuery = query.credentials.find((c) => c.id === credential.credentialQueryId)!;
  return {
    ...credential.dcql,
    claims: projectClaims(
      credential.dcql.claims as Record<string, unknown>,
      claimQuery.claims.map((c) => c.path),
    ),
  };
}

/** The value with only the members on the given paths (arrays kept whole below a path's first index). */
function projectClaims(source: Record<string, unknown>, paths: ClaimPath[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const path of paths) {
    let from: unknown = source;
    let to: Record<string, unknown> = out;
    for (const [i, segment] of path.entries()) {
      if (typeof segment !== 'string' || !isObjectValue(from) || !Object.hasOwn(from, segment)) {
        break;
      }
      const value = from[segment];
      const last = i === path.length - 1 || typeof path[i + 1] !== 'string' || !isObjectValue(value);
      if (last) {
        to[segment] = value;
        break;
      }
      if (!isObjectValue(to[segment])) to[segment] = {};
      to = to[segment] as Record<string, unknown>;
      from = value;
    }
  }
  return out;
}

/** The replay digest of a presentation (its exact bytes). */
export const presentationDigest = (presentation: unknown) =>
  sha256Base64url(typeof presentation === 'string' ? presentation : JSON.stringify(presentation));

export async function verifyPresentation(
  input: VerificationInput,
  deps: VerificationDeps,
): Promise<VerificationOutcome> {
  const checks: CheckResult[] = [];
  try {
    const entries = dcqlEntries(input.vpToken, input.query);
    checks.push(pass('dcql'));

    const digests = entries.map(([, presentation]) => presentationDigest(presentation));
    if ((await deps.usedDigests(digests)).length > 0)
      throw new CheckFailure(fail('replay', 'a presentation of this response was already accepted'));
    checks.push(pass('replay'));

    const credentials: VerifiedCredential[] = [];
    for (const [queryId, presentation] of entries) {
      const query = input.query.credentials.find((c) => c.id === queryId)!;
      const ctx: PresentationContext = {
        query,
        clientId: input.clientId,
        nonce: input.nonce,
        now: input.now,
        kbJwtMaxAgeSeconds: input.kbJwtMaxAgeSeconds,
        clockSkewSeconds: input.clockSkewSeconds,
      };
      if (query.format === 'dc+sd-jwt') {
        if (typeof presentation !== 'string')
          throw new CheckFailure(fail('format', 'the dc+sd-jwt presentation is not a string', query.id));
        credentials.push(await verifySdJwtPresentation(presentation, ctx, checks));
      } else {
        credentials.push(await verifyJwtVcPresentation(presentation, ctx, checks));
      }
    }

    if (credentials.length > 1) {
      const holders = new Set(await Promise.all(credentials.map((c) => jwkThumbprintUri(c.holderJwk))));
      if (holders.size > 1)
        throw new CheckFailure(fail('holder_binding', 'the credentials are bound to different holder keys'));
    }

    for (const credential of credentials) {
      const result = await deps.status.check(credential, input.now);
      if (!result.ok) throw new CheckFailure(result);
      checks.push(result);
    }

    const claims: Record<string, unknown> = {};
    for (const credential of credentials) {
      const query = input.query.credentials.find((c) => c.id === credential.credentialQueryId)!;
      const missing = missingRequiredClaims(query, credential.claimSource);
      if (missing.length > 0)
        throw new CheckFailure(fail('dcql', `a required claim is missing: ${missing.join(', ')}`, query.id));
      Object.assign(claims, presentedClaims(query, credential.claimSource));
    }
    const presented = credentials.map((c) => [c.credentialQueryId, [dcqlView(c, input.query)]]);
    if (!satisfiesQuery(input.query, Object.fromEntries(presented) as Record<string, unknown[]>))
      throw new CheckFailure(fail('dcql', 'the presented credentials do not satisfy the DCQL query'));
    checks.push(pass('dcql'));
    return { ok: true, checks, credentials, claims, digests };
  } catch (error) {
    if (error instanceof CheckFailure) return { ok: false, checks: [...checks, error.result], failure: error.result };
    throw error;
  }
}

/** OID4VP §8.1: vp_token is an object keyed by credential query id, each value one presentation (or an array of one). */
function dcqlEntries(vpToken: unknown, query: PresentationQuery): [string, unknown][] {
  if (!isObjectValue(vpToken))
    throw new CheckFailure(fail('dcql', 'the vp_token is not an object keyed by credential query id'));
  const known = new Set(query.credentials.map((c) => c.id));
  const entries: [string, unknown][] = [];
  for (const [id, value] of Object.entries(vpToken)) {
    if (!known.has(id))
      throw new CheckFailure(fail('dcql', `the vp_token answers an unknown credential query id: ${id.slice(0, 64)}`));
    const list = Array.isArray(value) ? value : [value];
    if (list.length !== 1)
      throw new CheckFailure(fail('dcql', `credential query ${id} must be answered by exactly one presentation`, id));
    entries.push([id, list[0]]);
  }
  if (!query.credentialSets) {
    for (const id of known) {
      if (!Object.hasOwn(vpToken, id))
        throw new CheckFailure(fail('dcql', `the vp_token lacks credential query ${id}`, id));
    }
    return entries;
  }
  // OID4VP §6.2: every required set is answered by one of its options, and nothing outside the sets is presented.
  const answered = new Set(entries.map(([id]) => id));
  const inSets = new Set(query.credentialSets.flatMap((set) => set.options.flat()));
  for (const id of answered)
    if (!inSets.has(id)) throw new CheckFailure(fail('dcql', `credential query ${id} is in no credential set`, id));
  query.credentialSets.forEach((set, index) => {
    if (set.required && !set.options.some((option) => option.every((id) => answered.has(id))))
      throw new CheckFailure(fail('dcql', `the vp_token answers no option of credential set ${index}`));
  });
  return entries;
}

import { DcqlQuery, type DcqlCredential } from 'dcql';
import type { HeldCredential } from './decode-held-credential.js';
import { WalletError } from './wallet-error.js';

/** A claims path pointer (OpenID4VP 1.0 §7): strings name object members, numbers array positions, null all elements. */
export type ClaimPath = Array<string | number | null>;

export interface CredentialSelection {
  credentialQueryId: string;
  credential: HeldCredential;
  /** The paths of the claims to disclose; empty when the query asks for no claims (only mandatory ones are sent). */
  claimPaths: ClaimPath[];
}

const VC_TYPE_IRI = 'https://www.w3.org/2018/credentials#VerifiableCredential';

/**
 * DCQL compares W3C `type_values` with the expanded type IRIs (OpenID4VP 1.0 Appendix B.1.1); without a JSON-LD
 * processor the wallet offers the compact names and the one expansion every credential has.
 */
function typesForMatching(types: string[]): string[] {
  return types.includes('VerifiableCredential') ? [...types, VC_TYPE_IRI] : types;
}

export function toDcqlCredential(credential: HeldCredential): DcqlCredential {
  if (credential.format === 'dc+sd-jwt') {
    return {
      credential_format: 'dc+sd-jwt',
      vct: credential.vct ?? '',
      claims: credential.claims as never,
      cryptographic_holder_binding: true,
    };
  }
  return {
    credential_format: 'jwt_vc_json',
    type: typesForMatching(credential.types ?? []),
    claims: credential.claims as never,
    cryptographic_holder_binding: true,
  };
}

type QueryResult = ReturnType<typeof DcqlQuery.query>;

/**
 * Of the satisfiable options of a credential set, the one that presents the held credential the wallet prefers most
 * (the lowest position in `held`, see `respond()`), and among equals the verifier's first (OpenID4VP 1.0 §6.2 lists
 * options in the verifier's order of preference and leaves the choice to the wallet).
 */
function preferredOption(
  options: ReadonlyArray<readonly string[]>,
  matches: QueryResult['credential_matches'],
): readonly string[] | undefined {
  const rank = (option: readonly string[]) =>
    Math.min(
      ...option.map((id) => {
        const match = matches[id];
        return match?.success ? (match.valid_credentials[0]?.input_credential_index ?? Infinity) : Infinity;
      }),
    );
  let best: readonly string[] | undefined;
  for (const option of options) if (best === undefined || rank(option) < rank(best)) best = option;
  return best;
}

/**
 * Answers a DCQL query (OpenID4VP 1.0 §6) from the held credentials, given in the wallet's order of preference. With
 * `credential_sets`, the satisfiable option of every set that presents the most preferred credential is taken, required sets must be satisfiable (§6.2); without them, every credential query must
 * be. For each credential query the first matching credential and the first satisfiable claim set are used, since
 * the verifier lists claim sets in order of preference (§6.3).
 */
export function selectCredentials(query: DcqlQuery, held: HeldCredential[]): CredentialSelection[] {
  const result = DcqlQuery.query(query, held.map(toDcqlCredential));
  let queryIds: string[];
  if (query.credential_sets) {
    queryIds = [];
    for (const [index, set] of (result.credential_sets ?? []).entries()) {
      const option = preferredOption(set.matching_options ?? [], result.credential_matches);
      if (option) queryIds.push(...option);
      else if (set.required)
        throw new WalletError('no_matching_credentials', `no held credential satisfies credential set ${index}`);
    }
  } else {
    queryIds = query.credentials.map((credentialQuery) => credentialQuery.id);
  }

  return [...new Set(queryIds)].map((credentialQueryId) => {
    const match = result.credential_matches[credentialQueryId];
    const credentialQuery = query.credentials.find((candidate) => candidate.id === credentialQueryId);
    if (!match?.success || !credentialQuery) {
      throw new WalletError(
        'no_matching_credentials',
        `no held credential matches credential query '${credentialQueryId}'`,
      );
    }
    const [chosen] = match.valid_credentials;
    const claimSet = chosen.claims.valid_claim_sets[0];
    const claims = (credentialQuery.claims ?? []) as Array<{ path: ClaimPath }>;
    const claimPaths = (claimSet.valid_claim_indexes ?? []).map((index) => claims[index]!.path);
    return { credentialQueryId, credential: held[chosen.input_credential_index]!, claimPaths };
  });
}

/** The claims a credential query asks for: its first claim set when it has claim sets, else all its claims. */
export function claimPathsOfQuery(credentialQuery: DcqlQuery['credentials'][number]): ClaimPath[] {
  const claims = (credentialQuery.claims ?? []) as Array<{ id?: string; path: ClaimPath }>;
  const firstSet = credentialQuery.claim_sets?.[0];
  const chosen = firstSet ? claims.filter((claim) => claim.id !== undefined && firstSet.includes(claim.id)) : claims;
  return chosen.map((claim) => claim.path);
}

/**
 * The `useCredential` override: the given credential answers the first credential query of its format (or the first
 * query), with that query's claims, whether or not DCQL would have accepted it.
 */
export function selectOverride(query: DcqlQuery, credential: HeldCredential): CredentialSelection[] {
  const credentialQuery =
    query.credentials.find((candidate) => candidate.format === credential.format) ?? query.credentials[0];
  return [{ credentialQueryId: credentialQuery.id, credential, claimPaths: claimPathsOfQuery(credentialQuery) }];
}

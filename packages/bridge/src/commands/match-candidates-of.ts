import type { Sql } from '@tessera/platform';
import { sessionAad } from '../crypto/sealing.js';
import type { MatchCandidate } from '../domain/resolution/match-candidates.js';
import type { PresentationSession } from '../domain/session.js';
import type { BridgeServices } from '../services.js';

/** The match candidates sealed on a CONFIRM_ATTRIBUTE_MATCH session (README "Match confirmation"); [] otherwise. */
export async function matchCandidatesOf(
  services: BridgeServices,
  tenantId: string,
  session: PresentationSession,
  sql?: Sql,
): Promise<MatchCandidate[]> {
  if (!session.matchCandidatesSealed) return [];
  return services.sealer.openJson<MatchCandidate[]>(
    session.matchCandidatesSealed,
    sessionAad(tenantId, session.id, 'match_candidates'),
    sql,
  );
}

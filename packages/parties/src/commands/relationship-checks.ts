import type { Sql } from '@tessera/platform';
import { conflict, invalidField } from '../domain/errors.js';
import { isSeededRelationshipType } from '../domain/relationship-types.js';
import { partyStore } from '../storage/party-store.js';
import { relationshipStore, type RelationshipRow } from '../storage/relationship-store.js';

/**
 * Checks of a relationship about to be written, inside its transaction (001 §2.5): both parties live in the
 * tenant and different, the type in the tenant's catalog, and no live relationship of the same parties and type
 * whose window overlaps (409). Locks the pair first, so that the check holds until commit.
 */
export async function checkRelationship(sql: Sql, row: RelationshipRow): Promise<void> {
  if (row.fromPartyId === row.toPartyId) throw invalidField('toPartyId', 'A party cannot be related to itself.');
  await relationshipStore.lockPair(sql, row.fromPartyId, row.toPartyId);
  const live = await partyStore.liveTypes(sql, [row.fromPartyId, row.toPartyId]);
  if (!live.has(row.fromPartyId)) throw invalidField('fromPartyId', 'fromPartyId names no party of the tenant.');
  if (!live.has(row.toPartyId)) throw invalidField('toPartyId', 'toPartyId names no party of the tenant.');
  if (
    !isSeededRelationshipType(row.relationshipType) &&
    !(await relationshipStore.typeRegistered(sql, row.relationshipType))
  )
    throw invalidField(
      'relationshipType',
      'relationshipType is not in the tenant’s catalog (GET /relationship-types).',
    );
  const overlapping = await relationshipStore.overlapping(sql, row);
  if (overlapping)
    throw conflict(`A relationship of the same parties and type overlaps this validity window: ${overlapping}.`);
}

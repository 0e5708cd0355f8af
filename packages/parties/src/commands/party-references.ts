import type { Sql } from '@tessera/platform';
import { invalidField, partyNotFound } from '../domain/errors.js';
import type { PartyKind } from '../domain/party-kinds.js';
import type { PartyColumns } from '../domain/party-record.js';
import { memberStore } from '../storage/member-store.js';
import { partyStore } from '../storage/party-store.js';

/**
 * Checks of what a party's fields point at, inside the writing transaction: a home unit or parent is a live
 * organization unit of the tenant, and a unit is never placed under itself or one of its descendants.
 */
export async function checkUnitReference(
  sql: Sql,
  kind: PartyKind,
  columns: PartyColumns,
  selfId: string | null,
): Promise<void> {
  const unitId = columns.organizationUnitId;
  if (unitId === null || kind.unitField === undefined) return;
  const types = await partyStore.liveTypes(sql, [unitId]);
  if (types.get(unitId) !== 'ORGANIZATION_UNIT')
    throw invalidField(kind.unitField, `${kind.unitField} names no organization unit of the tenant.`);
  if (selfId !== null && kind.type === 'ORGANIZATION_UNIT') {
    // Two concurrent moves (A under B, B under A) could each pass the check alone: moves of a tenant's units queue.
    await partyStore.lockUnitTree(sql);
    if (await partyStore.unitWithin(sql, unitId, selfId))
      throw invalidField(kind.unitField, 'A unit cannot be placed under itself or one of its descendants.');
  }
}

/**
 * Checks members about to join a group (001 §2.5, issue 20 §2): each a live party of the tenant, and no cycle
 * (a group containing itself directly or through others: 400 naming the cycle). Takes the tenant's membership
 * lock first, so that the check holds until the transaction commits.
 * `field` names the input: a body array (`members`) is refused with 400, a path id (`memberId`) with 404.
 */
export async function checkNewMembers(
  sql: Sql,
  groupId: string,
  memberIds: readonly string[],
  field: 'members' | 'memberId',
): Promise<void> {
  await memberStore.lockTenantMembership(sql);
  const types = await partyStore.liveTypes(sql, memberIds);
  const missing = memberIds.findIndex((id) => !types.has(id) && id !== groupId);
  if (missing >= 0) {
    if (field === 'memberId') throw partyNotFound('party to add');
    throw invalidField(`members.${missing}`, `members[${missing}] names no party of the tenant.`);
  }
  const groups = memberIds.filter((id) => id === groupId || types.get(id) === 'GROUP');
  const path = await memberStore.cyclePath(sql, groupId, groups);
  if (path)
    throw invalidField(
      field,
      `The membership would make a cycle: ${[groupId, ...path].join(' -> ')} (a group cannot contain itself).`,
    );
}

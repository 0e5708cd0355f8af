import type { RoleName } from '@tessera/platform';
import type { RoleDefinition } from './role.js';
import { bridgeRole } from './bridge.js';
import { tokenRole } from './token.js';
import { portalRole } from './portal.js';
import { plannedRole } from './planned.js';

export type { RoleDefinition, RoleListener } from './role.js';

/**
 * Every role of the system and its default port (docs/configuration.md#ports). The roles still to come
 * (designs, issuance, status lists, parties, signing) start with their operational endpoints only, so that a
 * deployment can already place them.
 */
export const ROLES: Record<RoleName, RoleDefinition> = {
  bridge: bridgeRole,
  token: tokenRole,
  portal: portalRole,
  designs: plannedRole('designs', 'tessera-designs', (c) => c.server.ports.designs, 'design'),
  issuance: plannedRole('issuance', 'tessera-issuer', (c) => c.server.ports.issuance, 'oauth'),
  'status-lists': plannedRole('status-lists', 'tessera-status-lists', (c) => c.server.ports.statusLists, 'oauth'),
  parties: plannedRole('parties', 'tessera-parties', (c) => c.server.ports.parties, 'party'),
  signing: plannedRole('signing', 'tessera-signing', (c) => c.server.ports.signing, 'oauth'),
};

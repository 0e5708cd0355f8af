import type { RoleName } from '@tessera/platform';
import type { RoleDefinition } from './role.js';
import { bridgeRole } from './bridge.js';
import { tokenRole } from './token.js';
import { portalRole } from './portal.js';
import { statusListsRole } from './status-lists.js';
import { designsRole } from './designs.js';
import { partiesRole } from './parties.js';
import { signingRole } from './signing.js';
import { issuanceRole } from './issuance.js';

export type { RoleDefinition, RoleListener } from './role.js';

/**
 * Every role of the system and its default port (docs/configuration.md#ports). A role still to come (issuance)
 * starts with its operational endpoints only, so that a deployment can already place it.
 */
export const ROLES: Record<RoleName, RoleDefinition> = {
  bridge: bridgeRole,
  token: tokenRole,
  portal: portalRole,
  designs: designsRole,
  issuance: issuanceRole,
  'status-lists': statusListsRole,
  parties: partiesRole,
  signing: signingRole,
};

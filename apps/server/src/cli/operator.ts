import type { Principal } from '@tessera/platform';
import type { ServerConfig } from '../config.js';

/** The operator at the command line: a platform administrator, recorded as such in the audit events. */
export const cliOperator = (config: ServerConfig): Principal => ({
  id: 'cli-operator',
  kind: 'service',
  tenantId: null,
  roles: [config.auth.platformAdminRole],
  scopes: [],
  clientId: null,
  issuer: null,
});

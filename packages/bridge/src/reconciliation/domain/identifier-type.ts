import { AppError } from '@tessera/platform';
import type { IdentifierType } from '@tessera/identity';

/**
 * The identifierType of POST /lookup (000 §4.3: "KEY, the service or EPPN"). The service type is SERVICE_ID; the
 * upper-case name of the deployment's service claim (`deployment.serviceClaim`, e.g. `SERVICE_ID` for
 * `service_id`) is accepted as the same type. Case-sensitive.
 */
export function parseIdentifierType(value: string, serviceClaim: string): IdentifierType {
  if (value === 'KEY' || value === 'EPPN' || value === 'SERVICE_ID') return value;
  if (value === serviceClaim.toUpperCase()) return 'SERVICE_ID';
  throw new AppError('invalid_request', 'identifierType must be KEY, SERVICE_ID or EPPN.', { field: 'identifierType' });
}

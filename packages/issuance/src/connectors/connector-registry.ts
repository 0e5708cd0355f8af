import type { IssuanceConfig } from '../config.js';

export type ConnectorRegistration = IssuanceConfig['connectors'][number];

/** The connectors registered per tenant in the configuration (`issuance.connectors`), by tenant and id. */
export class ConnectorRegistry {
  private readonly byKey = new Map<string, ConnectorRegistration>();

  constructor(registrations: readonly ConnectorRegistration[]) {
    for (const r of registrations) this.byKey.set(`${r.tenantId}\u0000${r.connectorId}`, r);
  }

  find(tenantId: string, connectorId: string): ConnectorRegistration | undefined {
    return this.byKey.get(`${tenantId}\u0000${connectorId}`);
  }
}

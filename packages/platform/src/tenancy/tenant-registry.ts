import type { Database } from '../db/index.js';

export interface Tenant {
  id: string;
  displayName: string;
  status: 'active' | 'suspended';
  hostNames: string[];
}

/**
 * The tenants this deployment serves, cached in memory and refreshed on an interval so that every replica sees
 * a tenant created anywhere. `/ready` waits for the first load (001 §4.5).
 */
export class TenantRegistry {
  private byId = new Map<string, Tenant>();
  private byHost = new Map<string, string>();
  private loadedAt: Date | null = null;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Database,
    private readonly configuredHosts: Record<string, string> = {},
  ) {}

  get loaded(): boolean {
    return this.loadedAt !== null;
  }

  async load(): Promise<void> {
    const rows = await this.db.withPlatform((sql) =>
      sql.query<{ id: string; display_name: string; status: 'active' | 'suspended'; host_names: string[] }>(
        'SELECT id, display_name, status, host_names FROM tenants',
      ),
    );
    const byId = new Map<string, Tenant>();
    const byHost = new Map<string, string>();
    for (const r of rows.rows) {
      byId.set(r.id, { id: r.id, displayName: r.display_name, status: r.status, hostNames: r.host_names });
      for (const h of r.host_names) byHost.set(h.toLowerCase(), r.id);
    }
    // Configured mappings win over stored ones: configuration is the operator's last word.
    for (const [host, id] of Object.entries(this.configuredHosts)) byHost.set(host.toLowerCase(), id);
    this.byId = byId;
    this.byHost = byHost;
    this.loadedAt = new Date();
  }

  startRefresh(intervalSeconds: number, onError: (error: unknown) => void): void {
    this.timer = setInterval(() => this.load().catch(onError), intervalSeconds * 1000);
    this.timer.unref();
  }

  stopRefresh(): void {
    clearInterval(this.timer);
  }

  get(id: string): Tenant | undefined {
    return this.byId.get(id);
  }

  isActive(id: string): boolean {
    return this.byId.get(id)?.status === 'active';
  }

  /** Whether any Host name maps to a tenant (when none does, a request's host need not be parsed). */
  get hasHostMappings(): boolean {
    return this.byHost.size > 0;
  }

  tenantForHost(host: string): string | undefined {
    return this.byHost.get(host.toLowerCase());
  }

  list(): Tenant[] {
    return [...this.byId.values()];
  }

  /** Creates a tenant (platform administration, development seed); idempotent. */
  async ensure(tenant: { id: string; displayName: string; hostNames?: string[] }): Promise<void> {
    await this.db.withPlatform((sql) =>
      sql.query(
        `INSERT INTO tenants (id, display_name, host_names) VALUES ($1, $2, $3)
         ON CONFLICT (id) DO NOTHING`,
        [tenant.id, tenant.displayName, tenant.hostNames ?? []],
      ),
    );
    await this.load();
  }
}

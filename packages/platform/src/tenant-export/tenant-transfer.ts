import type { WriteUnit } from '../commands/command.js';
import { Compile } from 'typebox/compile';
import type { TSchema } from 'typebox';
import { AppError, invalidRequest, isAppError } from '../errors/index.js';
import type { Sql } from '../db/database.js';
import type { Platform } from '../platform.js';
import { tenantExporters, type SectionImportResult, type TenantExporter, type TenantUnit } from './exporter.js';
import {
  tenantExportSchema,
  TENANT_EXPORT_FORMAT,
  TENANT_EXPORT_VERSION,
  type TenantExportDocument,
  type TenantRegistration,
} from './document.js';

export interface TenantImportReport {
  tenantId: string;
  sourceTenantId: string;
  /** Stored sections written into the tenant. */
  imported: string[];
  /** Sections present but not imported, with why (configuration sections belong to the operator). */
  notImported: { section: string; reason: string }[];
  /** Secrets issued for imported objects, by section then object id: shown this once. */
  issuedSecrets: Record<string, Record<string, string>>;
  notes: string[];
}

/** A unit whose SQL is refused: handed to sections that work through their own units (TenantExporter.ownUnits). */
const noSql: Sql = {
  query: () => Promise.reject(new Error('this section works outside the unit of work')),
  exec: () => Promise.reject(new Error('this section works outside the unit of work')),
};

/**
 * Tenant export and import (001 §4.5): the platform assembles the document from the sections the contexts
 * registered (exporter.ts) and never reads a context's tables itself.
 */
export class TenantTransfer {
  private compiled: { exporters: TenantExporter[]; check: ReturnType<typeof Compile<TSchema>> } | undefined;

  constructor(private readonly platform: Platform) {}

  /** The document's JSON Schema with the sections registered now (docs/schemas/tenant-export.schema.json). */
  schema(): TSchema {
    return tenantExportSchema(tenantExporters(this.platform));
  }

  async exportTenant(tenantId: string): Promise<TenantExportDocument> {
    const tenant = await this.registration(tenantId);
    if (!tenant) throw new AppError('not_found', 'The tenant does not exist.');
    const exporters = tenantExporters(this.platform);
    const sections: TenantExportDocument['sections'] = {};
    // One transaction: the sections are one consistent snapshot of the tenant.
    await this.platform.db.withTenant(tenantId, async (sql) => {
      for (const e of exporters.filter((x) => !x.ownUnits))
        sections[e.section] = { origin: e.origin, data: await e.read({ tenantId, sql }) };
    });
    for (const e of exporters.filter((x) => x.ownUnits))
      sections[e.section] = { origin: e.origin, data: await e.read({ tenantId, sql: noSql }) };
    return {
      format: TENANT_EXPORT_FORMAT,
      version: TENANT_EXPORT_VERSION,
      exportedAt: this.platform.clock.now().toISOString(),
      sourceTenantId: tenantId,
      productVersion: this.platform.config.build.version,
      tenant,
      sections: Object.fromEntries(Object.entries(sections).sort(([a], [b]) => a.localeCompare(b))),
    };
  }

  /**
   * Checks a document before anything is written: its shape (400 naming the field), and that none of its host
   * names is bound to another tenant (409). Run before the target tenant is registered.
   */
  async checkDocument(tenantId: string, body: unknown): Promise<TenantExportDocument> {
    const exporters = tenantExporters(this.platform);
    if (
      this.compiled?.exporters.length !== exporters.length ||
      this.compiled.exporters.some((e, i) => e !== exporters[i])
    )
      this.compiled = { exporters, check: Compile(tenantExportSchema(exporters)) };
    if (!this.compiled.check.Check(body)) {
      const error = this.compiled.check.Errors(body).find((e) => e.keyword !== 'boolean');
      const params = (error?.params ?? {}) as { additionalProperties?: string[]; requiredProperties?: string[] };
      const path = (error?.instancePath ?? '').replace(/^\//, '').replaceAll('/', '.');
      const leaf = params.requiredProperties?.[0] ?? params.additionalProperties?.[0];
      const field = [path, leaf].filter(Boolean).join('.') || 'body';
      const what = params.additionalProperties ? 'is not known to this deployment' : (error?.message ?? 'is invalid');
      throw invalidRequest(`Invalid tenant export document: ${field} ${what}.`, field);
    }
    const doc = body as TenantExportDocument;
    await this.platform.tenants.load();
    for (const host of doc.tenant.hostNames) {
      const owner = this.platform.tenants.tenantForHost(host);
      if (owner !== undefined && owner !== tenantId)
        throw new AppError('conflict', `The host name ${host} is bound to another tenant.`, {
          field: 'tenant.hostNames',
        });
    }
    return doc;
  }

  /**
   * Registers the target tenant when it does not exist yet (inactive registration details are replaced by the
   * import), so that the import's audit event has a chain to land in.
   */
  async prepareTarget(tenantId: string, registration: TenantRegistration): Promise<void> {
    if (this.platform.tenants.get(tenantId)) return;
    await this.platform.tenants.ensure({ id: tenantId, displayName: registration.displayName });
  }

  /**
   * Recreates the document's stored sections in the tenant, which must hold none of them yet (409 otherwise), in
   * one transaction with the tenant registration; sections with their own units follow once it has committed.
   */
  /**
   * Imports `doc` into the (empty) tenant. The stored sections are written in `unit` (by default a transaction of
   * the tenant; the import command gives its unit of work, so that they commit with its audit event); the sections
   * that write through other services (`afterCommit`: the key manager, URL checks that resolve hosts) follow it.
   */
  async importTenant(
    tenantId: string,
    doc: TenantExportDocument,
    unit: WriteUnit = (fn) => this.platform.db.withTenant(tenantId, fn),
  ): Promise<TenantImportReport> {
    const exporters = tenantExporters(this.platform);
    const report: TenantImportReport = {
      tenantId,
      sourceTenantId: doc.sourceTenantId,
      imported: [],
      notImported: [],
      issuedSecrets: {},
      notes: [],
    };
    const take = (section: string, result: SectionImportResult | void) => {
      if (!result) return;
      if (result.issuedSecrets && Object.keys(result.issuedSecrets).length > 0)
        report.issuedSecrets[section] = result.issuedSecrets;
      report.notes.push(...(result.notes ?? []));
    };
    const present = exporters.filter((e) => doc.sections[e.section] !== undefined);
    for (const e of present.filter((x) => x.origin === 'configuration'))
      report.notImported.push({ section: e.section, reason: 'held in the deployment configuration' });
    // A stored section without a write is a reference (e.g. keys whose private half stays with its provider).
    for (const e of present.filter((x) => x.origin === 'stored' && !x.write && !x.afterCommit))
      report.notImported.push({ section: e.section, reason: 'reference only: recreate it in the target' });
    const stored = present.filter((e) => e.origin === 'stored' && (e.write || e.afterCommit));

    await this.writeStored(unit, async (sql) => {
      // Serialises imports into one tenant: the second finds the first's rows and is refused.
      const locked = await sql.query('SELECT 1 FROM tenants WHERE id = $1 FOR UPDATE', [tenantId]);
      if (locked.rowCount === 0) throw new AppError('not_found', 'The tenant does not exist.');
      const unit: TenantUnit = { tenantId, sql };
      const occupied: string[] = [];
      for (const e of exporters.filter((x) => x.origin === 'stored' && x.isEmpty && !x.ownUnits))
        if (!(await e.isEmpty!(unit))) occupied.push(e.section);
      if (occupied.length > 0)
        throw new AppError('conflict', `The tenant is not empty: it holds ${occupied.join(', ')}.`);
      await sql.query('UPDATE tenants SET display_name = $2, status = $3, host_names = $4 WHERE id = $1', [
        tenantId,
        doc.tenant.displayName,
        doc.tenant.status,
        doc.tenant.hostNames,
      ]);
      for (const e of stored.filter((x) => !x.ownUnits && x.write)) {
        take(e.section, await e.write!(unit, doc.sections[e.section]!.data));
        report.imported.push(e.section);
      }
    });
    // The stored sections and the import's audit event have committed: the import is made, and its answer must say
    // so (issue 13 §7; a retry would find the tenant occupied). A section after the commit that fails is reported as
    // not imported, with its reason, for the administrator to recreate through its own API.
    for (const e of stored.filter((x) => x.afterCommit)) {
      try {
        take(e.section, await e.afterCommit!(tenantId, doc.sections[e.section]!.data));
        if (!report.imported.includes(e.section)) report.imported.push(e.section);
      } catch (error) {
        this.platform.logger.warn({ err: error, section: e.section, tenant_id: tenantId }, 'import section failed');
        report.imported = report.imported.filter((section) => section !== e.section);
        report.notImported.push({
          section: e.section,
          reason: `failed after the other sections were imported (${isAppError(error) ? error.message : 'an internal error'}); recreate it through its API`,
        });
      }
    }
    await this.platform.tenants.load();
    report.imported.sort();
    report.notImported.sort((a, b) => a.section.localeCompare(b.section));
    return report;
  }

  /**
   * The import's unit of work. A document that passed the schema may still break a constraint of the tables (a
   * binding to a design it does not contain, the same id twice, a value a column cannot hold): that is a bad
   * document, answered 400, not a server error; nothing of it is written.
   */
  private async writeStored(unit: WriteUnit, fn: (sql: Sql) => Promise<void>): Promise<void> {
    try {
      await unit(fn);
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (typeof code === 'string' && /^2[23]/.test(code) && !isAppError(error))
        throw new AppError('invalid_request', 'The document does not fit: a section breaks a rule of its store.', {
          cause: error,
        });
      throw error;
    }
  }

  private async registration(tenantId: string): Promise<TenantRegistration | null> {
    const { rows } = await this.platform.db.withPlatform((sql) =>
      sql.query<{ display_name: string; status: 'active' | 'suspended'; host_names: string[] }>(
        'SELECT display_name, status, host_names FROM tenants WHERE id = $1',
        [tenantId],
      ),
    );
    const r = rows[0];
    return r ? { displayName: r.display_name, status: r.status, hostNames: [...r.host_names].sort() } : null;
  }
}

const transfers = new WeakMap<Platform, TenantTransfer>();

/** The platform's tenant transfer service (one per platform). */
export function tenantTransfer(platform: Platform): TenantTransfer {
  let t = transfers.get(platform);
  if (!t) {
    t = new TenantTransfer(platform);
    transfers.set(platform, t);
  }
  return t;
}

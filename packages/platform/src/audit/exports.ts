import type { AuditEvent, AuditResult } from './audit-log.js';
import { canonicalJson } from './canonical.js';

/**
 * Export formats of audit events (001 §6: JSON, CEF, OCSF), for the read endpoint and for SIEM replication.
 * Pure functions: the event in, one record out. Audit events carry no personal data, so neither do these.
 */
export interface ExportOptions {
  /** The product version written into CEF headers and OCSF metadata (config build.version). */
  productVersion?: string;
}

const PRODUCT = 'Tessera';
const DEFAULT_VERSION = '0.0.0';

/** One JSON object, no trailing newline (JSON Lines when joined with "\n"). */
export function toJsonLine(event: AuditEvent): string {
  return JSON.stringify(event);
}

// --- CEF (ArcSight Common Event Format, revision 25) -----------------------------------------------------------

/** CEF severity 0-10: 0-3 low, 4-6 medium, 7-8 high. */
const CEF_SEVERITY: Record<AuditResult, number> = { success: 3, failure: 5, denied: 7 };

/** Header fields escape backslash and pipe; a header cannot hold a line break, so one becomes a space. */
export function escapeCefHeader(value: string): string {
  return value.replace(/[\\|]/g, (c) => `\\${c}`).replace(/\r\n|[\r\n]/g, ' ');
}

/** Extension values escape backslash and equals sign, and write line breaks as \n and \r. */
export function escapeCefExtension(value: string): string {
  return value
    .replace(/[\\=]/g, (c) => `\\${c}`)
    .replace(/\r\n|\n/g, '\\n')
    .replace(/\r/g, '\\r');
}

/**
 * `CEF:0|Tessera|tessera|<version>|<event type>|<command id or event type>|<severity>|<extension>`. Extension keys
 * are CEF dictionary keys; the custom string fields are labelled.
 */
export function toCef(event: AuditEvent, options: ExportOptions = {}): string {
  const header = [
    'CEF:0',
    PRODUCT,
    'tessera',
    options.productVersion ?? DEFAULT_VERSION,
    event.type,
    event.commandId ?? event.type,
    String(CEF_SEVERITY[event.result]),
  ].map((field, i) => (i === 0 ? field : escapeCefHeader(field)));
  const extension: [string, string | number | null][] = [
    ['rt', Date.parse(event.occurredAt)],
    ['externalId', event.eventId],
    ['cn1Label', 'seq'],
    ['cn1', event.seq],
    ['suser', event.principalId],
    ['outcome', event.result],
    ['cs1Label', 'tenant'],
    ['cs1', event.tenantId],
    ['cs2Label', 'correlationId'],
    ['cs2', event.correlationId],
    ['cs3Label', 'traceId'],
    ['cs3', event.traceId],
    ['cs4Label', 'businessIds'],
    ['cs4', canonicalJson(event.businessIds)],
    ['cs5Label', 'details'],
    ['cs5', canonicalJson(event.details)],
    ['cs6Label', 'hash'],
    ['cs6', event.hash],
  ];
  const ext = extension
    .filter(([, v]) => v !== null)
    .map(([k, v]) => `${k}=${escapeCefExtension(String(v))}`)
    .join(' ');
  return `${header.join('|')}|${ext}`;
}

// --- OCSF 1.x (Open Cybersecurity Schema Framework) ------------------------------------------------------------

export const OCSF_SCHEMA_VERSION = '1.3.0';

const OCSF_SEVERITY: Record<AuditResult, { id: number; name: string }> = {
  success: { id: 1, name: 'Informational' },
  failure: { id: 2, name: 'Low' },
  denied: { id: 3, name: 'Medium' },
};

/** API Activity activity ids from the verb of the command id (`party-rest.persons.create`, `...read-events`). */
function apiActivity(commandId: string | null): { id: number; name: string } {
  const verb = (commandId ?? '').split('.').pop()?.split('-')[0] ?? '';
  if (['create', 'import', 'add', 'register'].includes(verb)) return { id: 1, name: 'Create' };
  if (['get', 'list', 'read', 'query', 'export', 'search'].includes(verb)) return { id: 2, name: 'Read' };
  if (['update', 'patch', 'replace', 'set'].includes(verb)) return { id: 3, name: 'Update' };
  if (['delete', 'remove', 'erase'].includes(verb)) return { id: 4, name: 'Delete' };
  return { id: 99, name: 'Other' };
}

function authenticationActivity(type: string): { id: number; name: string } {
  return /logoff|logout|signout/.test(type) ? { id: 2, name: 'Logoff' } : { id: 1, name: 'Logon' };
}

/**
 * Authentication events (`authentication.*`) map to class Authentication (3002, category Identity & Access
 * Management 3); every other event to API Activity (6003, category Application Activity 6). What OCSF has no
 * attribute for goes into `unmapped`.
 */
export function toOcsf(event: AuditEvent, options: ExportOptions = {}): Record<string, unknown> {
  const authentication = event.type.startsWith('authentication.');
  const klass = authentication
    ? { uid: 3002, name: 'Authentication', categoryUid: 3, categoryName: 'Identity & Access Management' }
    : { uid: 6003, name: 'API Activity', categoryUid: 6, categoryName: 'Application Activity' };
  const activity = authentication ? authenticationActivity(event.type) : apiActivity(event.commandId);
  const severity = OCSF_SEVERITY[event.result];
  const user = event.principalId === null ? undefined : { uid: event.principalId };
  return {
    class_uid: klass.uid,
    class_name: klass.name,
    category_uid: klass.categoryUid,
    category_name: klass.categoryName,
    activity_id: activity.id,
    activity_name: activity.name,
    type_uid: klass.uid * 100 + activity.id,
    type_name: `${klass.name}: ${activity.name}`,
    time: Date.parse(event.occurredAt),
    severity_id: severity.id,
    severity: severity.name,
    status_id: event.result === 'success' ? 1 : 2,
    status: event.result === 'success' ? 'Success' : 'Failure',
    status_code: event.result,
    message: event.type,
    actor: user ? { user } : {},
    ...(authentication ? (user ? { user } : {}) : { api: { operation: event.commandId ?? event.type } }),
    metadata: {
      version: OCSF_SCHEMA_VERSION,
      product: { name: PRODUCT, vendor_name: PRODUCT, version: options.productVersion ?? DEFAULT_VERSION },
      uid: event.eventId,
      event_code: event.type,
      log_name: 'audit',
      sequence: event.seq,
      tenant_uid: event.tenantId,
      ...(event.correlationId === null ? {} : { correlation_uid: event.correlationId }),
    },
    unmapped: {
      command_id: event.commandId,
      trace_id: event.traceId,
      business_ids: event.businessIds,
      details: event.details,
      prev_hash: event.prevHash,
      hash: event.hash,
    },
  };
}

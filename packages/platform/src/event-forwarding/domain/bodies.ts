import type { AuditEvent } from '../../audit/audit-log.js';
import { toCef, toJsonLine, toOcsf, type ExportOptions } from '../../audit/exports.js';
import type { ForwarderFormat } from './stream.js';

/**
 * The body of one forwarded audit event in a generic forwarder's format, made by the audit store's own export
 * formatters (001 §6: JSON, CEF, OCSF), so the SIEM gets what the audit read API exports.
 */
export function forwardedBody(
  format: ForwarderFormat,
  event: AuditEvent,
  options: ExportOptions,
): { body: string; contentType: string } {
  switch (format) {
    case 'json':
      return { body: toJsonLine(event), contentType: 'application/json' };
    case 'ocsf':
      return { body: JSON.stringify(toOcsf(event, options)), contentType: 'application/json' };
    case 'cef':
      return { body: toCef(event, options), contentType: 'text/plain; charset=utf-8' };
  }
}

import type { AuditEvent, AuditResult } from '../../audit/audit-log.js';

/**
 * One audit event as an RFC 5424 syslog message, for a forwarder whose destination is syslog over TLS (RFC 5425).
 * The MSG part is the forwarder's format (JSON, CEF or OCSF, made by the audit formatters); the header carries
 * what a collector files it by.
 *
 * - PRI: facility 13, "log audit" (RFC 5424 §6.2.1 table 1), severity by the event's result: informational (6)
 *   for a success, warning (4) for a failure, notice (5) for a denial.
 * - TIMESTAMP: when the event happened (the audit's `occurredAt`, RFC 3339 with UTC offset, §6.2.3).
 * - HOSTNAME / APP-NAME / PROCID: the sending host, `tessera`, the process id (§6.2.4–6.2.6).
 * - MSGID: the event type, cut to the 32 printable US-ASCII characters the field allows (§6.2.7).
 * - STRUCTURED-DATA: the NILVALUE. A private SD-ID needs an IANA enterprise number (§7.2.2) that the project does
 *   not have; everything a collector needs is in MSG.
 * - MSG: UTF-8 with the BOM, as §6.4 asks of a message known to be UTF-8.
 */
export interface SyslogHeader {
  hostname: string;
  procId: string;
}

const FACILITY_LOG_AUDIT = 13;
const SEVERITY: Record<AuditResult, number> = { success: 6, failure: 4, denied: 5 };
const BOM = '\uFEFF';

/** A header field: printable US-ASCII (33–126) only, at most `max` characters, NILVALUE when empty (§6). */
export function headerField(value: string, max: number): string {
  const printable = value.replace(/[^\x21-\x7e]/g, '').slice(0, max);
  return printable === '' ? '-' : printable;
}

export function toSyslogMessage(event: AuditEvent, msg: string, header: SyslogHeader): string {
  const pri = FACILITY_LOG_AUDIT * 8 + SEVERITY[event.result];
  const timestamp = new Date(event.occurredAt).toISOString();
  return [
    `<${pri}>1`,
    timestamp,
    headerField(header.hostname, 255),
    'tessera',
    headerField(header.procId, 128),
    headerField(event.type, 32),
    '-',
    `${BOM}${msg}`,
  ].join(' ');
}

/**
 * RFC 5425 §4.3 octet-counting framing: `MSG-LEN SP SYSLOG-MSG`, the length in octets of the UTF-8 message. A
 * message may then hold line breaks (JSON or CEF bodies never split into two records at the collector).
 */
export function frameSyslog(message: string): Buffer {
  const bytes = Buffer.from(message, 'utf8');
  return Buffer.concat([Buffer.from(`${bytes.length} `, 'ascii'), bytes]);
}

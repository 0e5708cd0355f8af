const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Text for HTML element content and quoted attribute values: the five characters that can end either are written
 * as entities (OWASP XSS prevention, rule #1 and #2). Every server-rendered page of the deployment uses this one.
 */
export const escapeHtml = (value: unknown): string => String(value).replace(/[&<>"']/g, (c) => ENTITIES[c]!);

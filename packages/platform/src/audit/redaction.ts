import { createHmac, hkdfSync } from 'node:crypto';
import { ConfigError } from '../config/load-config.js';

/**
 * Field-level redaction of audit events, configurable per command (001 §6 "Sensitive-data redaction is
 * configurable per command"; issue 15 §4). A rule names the events it applies to (command ids, event types — both
 * optional, `prefix.*` matches a prefix), the fields (`details.<path>`, `businessIds.<name>`, `*` for every key at
 * that level) and what happens to them:
 * - `drop`: the field is removed;
 * - `hash`: replaced by `hmac-sha256:<base64url>` under the tenant's audit pseudonymisation key, so that equal values
 *   still correlate within a tenant and cannot be recomputed without the key;
 * - `mask`: replaced by `****` plus the last two characters of a string of more than six (nothing of shorter ones).
 * Rules apply when the event is prepared, before it is staged or chained: the chain hashes the redacted form, and
 * the events that contexts write themselves (the bridge's session, IDV, erasure and lookup events) pass the same
 * point as the command bus's. docs/decisions.md, audit redaction.
 */
export interface RedactionRule {
  commands?: string[] | undefined;
  eventTypes?: string[] | undefined;
  fields: string[];
  action: 'drop' | 'hash' | 'mask';
}

/** The parts of an event that redaction reads and may change. */
export interface RedactableEvent {
  tenantId: string;
  type: string;
  commandId: string | null;
  businessIds: Record<string, string>;
  details: Record<string, unknown>;
}

type Path = { root: 'details' | 'businessIds'; segments: string[] };

const MASK = '****';

export class AuditRedaction {
  private readonly rules: { rule: RedactionRule; paths: Path[] }[];
  private readonly tenantKeys = new Map<string, Buffer>();

  /** `masterKey`: the platform's master key, from which each tenant's pseudonymisation key is derived (HKDF). */
  constructor(
    rules: readonly RedactionRule[],
    private readonly masterKey: Buffer,
  ) {
    this.rules = rules.map((rule) => ({ rule, paths: rule.fields.map(parsePath) }));
  }

  get empty(): boolean {
    return this.rules.length === 0;
  }

  /** Applies every matching rule to the event in place. */
  apply(event: RedactableEvent): void {
    for (const { rule, paths } of this.rules) {
      if (!matches(rule.commands, event.commandId) || !matches(rule.eventTypes, event.type)) continue;
      for (const path of paths) {
        const target: Record<string, unknown> = path.root === 'details' ? event.details : event.businessIds;
        this.redactAt(target, path.segments, rule.action, event.tenantId, path.root === 'businessIds');
      }
    }
  }

  private redactAt(
    node: Record<string, unknown>,
    segments: string[],
    action: RedactionRule['action'],
    tenantId: string,
    asString: boolean,
  ): void {
    const [head, ...rest] = segments;
    if (head === undefined) return;
    const keys = head === '*' ? Object.keys(node) : Object.hasOwn(node, head) ? [head] : [];
    for (const key of keys) {
      if (rest.length > 0) {
        const child = node[key];
        if (child !== null && typeof child === 'object' && !Array.isArray(child))
          this.redactAt(child as Record<string, unknown>, rest, action, tenantId, asString);
        continue;
      }
      if (action === 'drop') delete node[key];
      else if (action === 'mask') node[key] = mask(node[key]);
      else node[key] = this.pseudonym(tenantId, node[key]);
    }
  }

  private pseudonym(tenantId: string, value: unknown): string {
    let key = this.tenantKeys.get(tenantId);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', this.masterKey, 'tessera-audit-redaction', tenantId, 32));
      this.tenantKeys.set(tenantId, key);
    }
    const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
    return `hmac-sha256:${createHmac('sha256', key).update(text, 'utf8').digest('base64url')}`;
  }
}

function mask(value: unknown): string {
  return typeof value === 'string' && value.length > 6 ? `${MASK}${value.slice(-2)}` : MASK;
}

function matches(patterns: string[] | undefined, value: string | null): boolean {
  if (patterns === undefined) return true;
  if (value === null) return false;
  return patterns.some((p) => (p.endsWith('*') ? value.startsWith(p.slice(0, -1)) : p === value));
}

function parsePath(field: string): Path {
  const [root, ...segments] = field.split('.');
  if ((root !== 'details' && root !== 'businessIds') || segments.length === 0 || segments.some((s) => s === ''))
    throw new ConfigError('audit.redaction', `${JSON.stringify(field)} is not details.<path> or businessIds.<name>`);
  if (root === 'businessIds' && segments.length > 1)
    throw new ConfigError('audit.redaction', `${JSON.stringify(field)}: business ids are one level deep`);
  return { root, segments };
}

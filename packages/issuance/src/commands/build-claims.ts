import { defineCommand } from '@tessera/platform';
import { buildClaims } from '../domain/claims.js';
import { invalidField, sessionNotFound } from '../domain/errors.js';
import type { SessionStatus } from '../domain/session-machine.js';
import type { IssuanceServices } from '../services.js';
import { bagStore } from '../storage/bag-store.js';
import { sessionStore } from '../storage/session-store.js';
import { BUILD_CLAIMS } from './ids.js';

export type ClaimsForOutput =
  | { complete: true; claims: Record<string, unknown> }
  | { complete: false; missing: string[]; deferrable: boolean; status: SessionStatus };

/** Statuses in which a credential may be issued: complete (and approved where review is asked). */
const ISSUABLE: readonly SessionStatus[] = ['READY', 'ISSUED'];

/**
 * The claims of one credential configuration (001 §2.2 claimsBindings, §4.2), for the wallet-facing issuer.
 * Opens only the attribute values the binding names (latest value per path). Claims are answered only when the
 * session may issue (READY or ISSUED); otherwise what is missing, whether waiting is allowed (the binding is
 * deferrable, or the session awaits a reviewer's decision) and the status. A configuration the session's pipeline
 * does not bind is 400.
 */
export const buildSessionClaims = (s: IssuanceServices) =>
  defineCommand<{ correlationId: string; credentialConfigurationId: string }, ClaimsForOutput>({
    id: BUILD_CLAIMS,
    access: 'public',
    businessIds: (input, output) => ({
      correlationId: input.correlationId,
      credentialConfigurationId: input.credentialConfigurationId,
      ...(output ? { complete: String(output.complete) } : {}),
    }),
    async run(ctx, input) {
      const now = s.clock.now();
      return s.platform.db.withTenant(ctx.tenantId, async (sql) => {
        const session = await sessionStore.getLive(sql, input.correlationId, now);
        if (!session) throw sessionNotFound();
        const binding = session.pipeline.claimsBindings.find(
          (b) => b.credentialConfigurationId === input.credentialConfigurationId,
        );
        if (!binding)
          throw invalidField(
            'credentialConfigurationId',
            'The session pipeline binds no such credential configuration.',
          );
        const { status } = session.state;
        const paths = [...new Set(binding.claims.map((c) => c.attributePath))];
        const stored = await bagStore.latestValues(sql, session.id, paths);
        if (!ISSUABLE.includes(status)) {
          const present = new Set(stored.map((a) => a.path));
          const missing = binding.claims
            .filter((c) => c.required && !present.has(c.attributePath))
            .map((c) => c.claimPath);
          const deferrable = status !== 'FAILED' && (binding.deferrable || status === 'AWAITING_REVIEW');
          return { complete: false, missing, deferrable, status };
        }
        const values = new Map<string, unknown>();
        for (const a of stored) {
          const cell = { tenantId: ctx.tenantId, table: 'issuance_session_attributes' as const, rowId: a.id };
          values.set(a.path, await s.sealer.open(session.encryptionMode, cell, a.value, sql));
        }
        const built = buildClaims(binding, values);
        return built.complete ? built : { ...built, status };
      });
    },
  });

import { defineCommand } from '@tessera/platform';
import { deepLink } from '../domain/request-object.js';
import type { SessionStatus } from '../domain/session-state.js';
import type { BridgeServices } from '../services.js';
import { qrDataUri } from '../domain/qr-png.js';
import { readSession } from './read-session.js';

/**
 * GET /auth/oid4vp/qr/{sessionId} (000 §4.1 qrPageUri): what the standalone page shows. Nothing of the tenant and
 * nothing personal: the QR of the deep link, the deep link, the status and the expiry.
 */
export interface QrPageModel {
  sessionId: string;
  requestUri: string;
  qrCodeDataUri: string;
  status: SessionStatus;
  expiresAt: string;
  /** Milliseconds from now to the expiry, on the server's clock: the page counts them on the browser's monotonic
   * clock, so a browser whose wall clock is off does not show the code as expired too early or too late. */
  msLeft: number;
}

export const getQrPage = (services: BridgeServices) =>
  defineCommand<{ sessionId: string }, QrPageModel>({
    id: 'bridge.qr.page',
    access: 'public',
    async run(ctx, { sessionId }) {
      const session = await readSession(services, ctx.tenantId, { id: sessionId });
      const requestUri = deepLink(session.verifierClientId, services.config.publicBaseUrl, session.requestId);
      return {
        sessionId,
        requestUri,
        qrCodeDataUri: qrDataUri(requestUri),
        status: session.status,
        expiresAt: session.expiresAt.toISOString(),
        msLeft: Math.max(0, session.expiresAt.getTime() - services.clock.now().getTime()),
      };
    },
  });

/** GET /auth/oid4vp/qr/{sessionId}/status: the status alone, for the page's polling (extension, README). */
export const getQrStatus = (services: BridgeServices) =>
  defineCommand<{ sessionId: string }, { status: SessionStatus }>({
    id: 'bridge.qr.status',
    access: 'public',
    async run(ctx, { sessionId }) {
      return { status: (await readSession(services, ctx.tenantId, { id: sessionId })).status };
    },
  });

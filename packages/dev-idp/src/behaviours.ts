import { setTimeout as wait } from 'node:timers/promises';
import { TAMPER_BEHAVIOURS, type IdTokenTamperer, type TamperBehaviour } from './id-token-tamper.js';
import type { Middleware } from './koa.js';
import type { Behaviour } from './types.js';

export const DEFAULT_SLOW_SECONDS = 10;

/** The current failure mode, read by the token endpoint middleware on each request. */
export class BehaviourSwitch {
  current: Behaviour = 'normal';
  delaySeconds = DEFAULT_SLOW_SECONDS;
  private waits = new AbortController();

  /** Ends pending `slow` waits, so that closing the server does not leave timers behind. */
  releaseWaits(): void {
    this.waits.abort();
    this.waits = new AbortController();
  }

  get signal(): AbortSignal {
    return this.waits.signal;
  }
}

/**
 * Failure modes of the token endpoint (RFC 6749 5.2 errors, slowness, invalid ID tokens), placed in front of
 * oidc-provider's own routing. `token_error` answers before the code is looked at, so the code stays unused.
 */
export function tokenEndpointBehaviour(
  state: BehaviourSwitch,
  tamperer: IdTokenTamperer,
  tokenPath: string,
): Middleware {
  return async (ctx, next) => {
    if (ctx.path !== tokenPath || ctx.method !== 'POST' || state.current === 'normal') return next();
    const behaviour = state.current;
    if (behaviour === 'token_error') {
      ctx.status = 400;
      ctx.set('cache-control', 'no-store');
      ctx.body = {
        error: 'invalid_grant',
        error_description: 'The development provider was told to refuse this exchange.',
      };
      return;
    }
    if (behaviour === 'slow') {
      const released = await wait(state.delaySeconds * 1000, false, { signal: state.signal }).catch(() => true);
      if (released) {
        ctx.status = 503;
        return;
      }
    }
    await next();
    const body = ctx.body as { id_token?: unknown } | undefined;
    if (TAMPER_BEHAVIOURS.has(behaviour) && ctx.status === 200 && typeof body?.id_token === 'string') {
      body.id_token = await tamperer.tamper(body.id_token, behaviour as TamperBehaviour);
    }
  };
}

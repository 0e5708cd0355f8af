import { AppError } from '@tessera/platform';
import type { SessionStatus } from '../domain/session-state.js';

/** The session errors of 000 §7, in the `{error, error_description}` envelope of the bridge. */
export const sessionNotFound = () =>
  new AppError('not_found', 'No presentation session has this id.', { wireCode: 'session_not_found' });

export const sessionExpired = (message = 'The presentation session has expired.') =>
  new AppError('not_found', message, { status: 410, wireCode: 'session_expired' });

/** 409 invalid_session_state; `sessionStatus` is the status the session was found in (the redeem body adds it). */
export class SessionStateError extends AppError {
  constructor(
    message: string,
    readonly sessionStatus: SessionStatus | null = null,
  ) {
    super('conflict', message, { wireCode: 'invalid_session_state' });
  }
}

export const invalidSessionState = (message: string, sessionStatus: SessionStatus | null = null) =>
  new SessionStateError(message, sessionStatus);

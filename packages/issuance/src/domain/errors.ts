import { AppError, invalidRequest } from '@tessera/platform';

/**
 * The errors of the pipeline API. 001 §7 names the envelope `{code, message}` for the design endpoints and leaves
 * the pipeline's open: the pipeline answers in the same one (the role app's `design` family), so one client
 * handles every 001 API alike (README.md, Decisions).
 */
export const sessionNotFound = () => new AppError('not_found', 'No live session with this correlation id.');
export const pipelineNotFound = () => new AppError('not_found', 'No pipeline configuration with this id.');
export const invalidField = (field: string, message: string) => invalidRequest(message, field);
export const alreadyExists = (message: string, field?: string) =>
  new AppError('already_exists', message, field === undefined ? {} : { field });
/** A session whose state refuses the move (409 CONFLICT_ERROR). */
export const conflict = (message: string) => new AppError('conflict', message);

import { AppError, errorHandler, type FastifyRequest, type Metrics, type RoleApp } from '@tessera/platform';

/**
 * The platform's error handler, with one addition for the design API (001 §7: a malformed body is 400
 * ILLEGAL_ARGUMENT_ERROR naming the field): a member the schema does not know is named too
 * (`additionalProperties`, which the platform reports as `body`).
 */
export function registerDesignErrorHandler(scope: RoleApp, metrics: Metrics): void {
  const handle = errorHandler('designs', 'design', metrics);
  scope.setErrorHandler((error: unknown, request: FastifyRequest, reply) => {
    const validation = (error as { validation?: { instancePath?: string; params?: Record<string, unknown> }[] })
      .validation?.[0];
    const extra = validation?.params?.additionalProperty;
    if (typeof extra === 'string') {
      const path = (validation!.instancePath ?? '').replace(/^\//, '').replaceAll('/', '.');
      const field = path ? `${path}.${extra}` : extra;
      return handle(new AppError('invalid_request', `Unknown member ${field}.`, { field }), request, reply);
    }
    return handle(error, request, reply);
  });
}

import type { ServerConfig } from './config.js';

/**
 * OpenTelemetry only when OTEL_EXPORTER_OTLP_ENDPOINT is set (001 §4.5); without it nothing is loaded.
 * Fastify routes are traced through @fastify/otel (diagnostics channel, so it works under ESM without a loader
 * hook), outgoing fetch calls through the undici instrumentation, and W3C traceparent/tracestate propagate.
 */
export async function startTelemetry(
  config: ServerConfig,
  serviceName: string,
): Promise<{ shutdown(): Promise<void> } | null> {
  if (!config.telemetry.otlpEndpoint) return null;
  process.env.OTEL_SERVICE_NAME ??= serviceName;
  const [
    { NodeSDK },
    { OTLPTraceExporter },
    { FastifyOtelInstrumentation },
    { UndiciInstrumentation },
    { HttpInstrumentation },
  ] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@fastify/otel'),
    import('@opentelemetry/instrumentation-undici'),
    import('@opentelemetry/instrumentation-http'),
  ]);
  const endpoint = config.telemetry.otlpEndpoint.replace(/\/$/, '');
  const sdk = new NodeSDK({
    serviceName,
    traceExporter: new OTLPTraceExporter({ url: `${endpoint}/v1/traces` }),
    instrumentations: [
      new HttpInstrumentation(),
      new UndiciInstrumentation(),
      new FastifyOtelInstrumentation({ registerOnInitialization: true }),
    ],
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}

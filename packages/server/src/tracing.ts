import type { TracingConfig } from './config.js';

/** The tracer provider the server registered: flushed and stopped on shutdown. */
export interface Tracing {
  /** Exports the spans still buffered, then stops. */
  shutdown(): Promise<void>;
}

/** Where the OTLP/HTTP exporter posts spans: the collector's `/v1/traces`. */
export function tracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/traces`;
}

/**
 * Registers an OpenTelemetry SDK that exports the API's spans over OTLP/HTTP (JSON) in batches,
 * with W3C trace context propagation and an AsyncLocalStorage context manager. The SDK is loaded
 * here, when tracing is configured, so that a server without it neither loads nor holds it.
 *
 * @example
 * ```ts
 * const tracing = await startTracing({ endpoint: 'http://127.0.0.1:4318', serviceName: 'workforce-kit' });
 * process.once('SIGTERM', () => tracing.shutdown());
 * ```
 */
export async function startTracing(config: TracingConfig): Promise<Tracing> {
  const [
    { BatchSpanProcessor, NodeTracerProvider },
    { OTLPTraceExporter },
    { resourceFromAttributes },
  ] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName }),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl(config.endpoint) })),
    ],
  });
  provider.register();
  return { shutdown: () => provider.shutdown() };
}

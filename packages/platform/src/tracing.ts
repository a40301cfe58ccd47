// Optional OpenTelemetry tracing: off unless an OTLP endpoint is configured. When off nothing is
// registered and the instrumented places skip their span work entirely (`tracingOn()` is false), so
// the hot paths (ingest, the projector's chunks) pay one boolean test.
import {
  context,
  propagation,
  SpanKind,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace-node';

/** Where spans go, parsed from the standard OpenTelemetry variables. */
export interface TracingConfig {
  /** OTLP/HTTP traces URL; null: tracing off. */
  readonly tracesUrl: string | null;
}

/**
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (the full URL) or `OTEL_EXPORTER_OTLP_ENDPOINT` (+ `/v1/traces`)
 * turns tracing on; `OTEL_SDK_DISABLED=true` keeps it off whatever is set.
 */
export function loadTracingConfig(env: Record<string, string | undefined>): TracingConfig {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === 'true') return { tracesUrl: null };
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return { tracesUrl: traces };
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return { tracesUrl: base ? `${base.replace(/\/+$/, '')}/v1/traces` : null };
}

let provider: NodeTracerProvider | undefined;

/** True once `startTracing` registered a provider: instrumented code creates spans only then. */
export function tracingOn(): boolean {
  return provider !== undefined;
}

/**
 * Registers the global tracer provider (W3C trace-context propagation, async-local context) when the
 * config names an endpoint; returns its shutdown (which flushes), or a no-op when tracing is off.
 * `processor` replaces the OTLP exporter (tests).
 */
export function startTracing(
  serviceName: string,
  config: TracingConfig,
  processor?: SpanProcessor,
): () => Promise<void> {
  if (!config.tracesUrl && !processor) return () => Promise.resolve();
  const p = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [processor ?? new BatchSpanProcessor(new OTLPTraceExporter({ url: config.tracesUrl! }))],
  });
  p.register();
  provider = p;
  return async () => {
    provider = undefined;
    await p.shutdown();
  };
}

/** Flushes spans not yet exported (tests; shutdown flushes too). */
export async function flushTracing(): Promise<void> {
  await provider?.forceFlush();
}

function tracer(): Tracer {
  return trace.getTracer('holdfast');
}

/**
 * Runs `fn` in a new span (a child of the active one) when tracing is on; ends it when `fn` settles
 * and marks it failed when it throws. Without tracing, just runs `fn`.
 */
export function inSpan<T>(
  name: string,
  kind: 'producer' | 'consumer' | 'internal',
  attributes: Attributes,
  fn: (span: Span | undefined) => T,
): T {
  if (!provider) return fn(undefined);
  const span = tracer().startSpan(name, { kind: KINDS[kind], attributes });
  const ctx = trace.setSpan(context.active(), span);
  let result: T;
  try {
    result = context.with(ctx, () => fn(span));
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: 2 });
    span.end();
    throw err;
  }
  if (result instanceof Promise)
    return result.then(
      (v: unknown) => {
        span.end();
        return v;
      },
      (err: unknown) => {
        span.recordException(err as Error);
        span.setStatus({ code: 2 });
        span.end();
        throw err;
      },
    ) as T;
  span.end();
  return result;
}

const KINDS = {
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
  internal: SpanKind.INTERNAL,
} as const;

/** A request's server span, ended when the answer is written. */
export interface ServerSpan {
  /** Runs `fn` (the rest of the request's handling) with this span active. */
  run<T>(fn: () => T): T;
  end(name: string, attributes: Attributes, failed: boolean): void;
}

/**
 * Starts the server span of an HTTP request (continuing the client's `traceparent` when it sent
 * one); undefined when tracing is off.
 */
export function startServerSpan(
  name: string,
  headers: Record<string, string | string[] | undefined>,
  attributes: Attributes,
): ServerSpan | undefined {
  if (!provider) return undefined;
  const parent = propagation.extract(context.active(), headers);
  const span = tracer().startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
  const ctx = trace.setSpan(parent, span);
  return {
    run: (fn) => context.with(ctx, fn),
    end(finalName, attrs, failed) {
      span.updateName(finalName);
      span.setAttributes(attrs);
      if (failed) span.setStatus({ code: 2 });
      span.end();
    },
  };
}

/** The W3C trace-context headers (`traceparent`, `tracestate`) of the active span; empty when off. */
export function traceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  if (provider) propagation.inject(context.active(), carrier);
  return carrier;
}

/**
 * Records a finished span (`start` … now) whose parent is the trace context carried in `headers`
 * (a consumed record's traceparent): the projector's apply of records a request appended.
 */
export function recordChildSpan(
  name: string,
  headers: Record<string, string>,
  startTime: number,
  attributes: Attributes,
): void {
  if (!provider) return;
  const parent: Context = propagation.extract(context.active(), headers);
  tracer().startSpan(name, { kind: SpanKind.CONSUMER, attributes, startTime }, parent).end();
}

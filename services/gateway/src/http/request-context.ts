import { AsyncLocalStorage } from 'node:async_hooks';
import { REQUEST_ID_HEADER, type OutgoingRecord } from '@holdfast/kafka';
import { inSpan, traceHeaders } from '@holdfast/platform';

/** What every record appended while serving a request carries: its request id (X-Request-Id). */
interface RequestContext {
  readonly requestId: string;
  /** Made once per request and shared by its records (a Buffer header value needs no conversion per record). */
  readonly headers: Readonly<Record<string, Buffer>>;
}

const current = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` (the rest of the middleware chain) as the request `requestId`. */
export function runAsRequest<T>(requestId: string, fn: () => T): T {
  return current.run({ requestId, headers: { [REQUEST_ID_HEADER]: Buffer.from(requestId) } }, fn);
}

/** The headers a record appended now must carry (none outside a request). */
export function requestHeaders(): Readonly<Record<string, Buffer>> | undefined {
  return current.getStore()?.headers;
}

interface AnyAppender {
  append(records: readonly OutgoingRecord[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * The appender every route uses: each record appended during a request carries that request's id in
 * its headers, so the consumers can log it for that record. One place, whatever the route.
 */
export function withRequestHeaders(appender: AnyAppender): AnyAppender {
  return {
    append(records: readonly OutgoingRecord[]) {
      // Tracing on: a producer span around the append, its context in every record (traceparent).
      return inSpan('kafka.append', 'producer', { 'messaging.batch.message_count': records.length }, () => {
        const ids = requestHeaders();
        if (!ids) return appender.append(records);
        const trace = traceHeaders();
        const headers = Object.keys(trace).length ? { ...ids, ...trace } : ids;
        return appender.append(
          records.map((r) => ({ ...r, headers: r.headers ? { ...headers, ...r.headers } : headers })),
        );
      });
    },
    close: () => appender.close(),
  };
}

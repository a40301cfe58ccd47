import type { ConsumedRecord } from './exactly-once-runner.js';

/**
 * The Kafka record header carrying the X-Request-Id of the HTTP request that appended the record, so
 * the projector, the recompute and the dispatcher can name it in their logs for that record.
 */
export const REQUEST_ID_HEADER = 'holdfast-request-id';

/** Header values as the client hands them over (Buffer, string or a list of them). */
export type RecordHeaders = Readonly<
  Record<string, Buffer | string | readonly (Buffer | string)[] | undefined>
>;

/** The text of header `name` of a consumed record (the first value when repeated), if present. */
export function headerText(record: Pick<ConsumedRecord, 'headers'>, name: string): string | undefined {
  const v = record.headers?.[name];
  const one = Array.isArray(v) ? (v as readonly (Buffer | string)[])[0] : (v as Buffer | string | undefined);
  return one === undefined ? undefined : typeof one === 'string' ? one : one.toString('utf8');
}

/** The request id a consumed record was appended under, if any. */
export function requestIdOfRecord(record: Pick<ConsumedRecord, 'headers'>): string | undefined {
  return headerText(record, REQUEST_ID_HEADER);
}

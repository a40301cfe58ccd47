import { classifyError } from '@holdfast/platform';
import { PoisonRecordError } from '../projection.js';

/**
 * Whether `err` means the records themselves are at fault (never retriable): the shared taxonomy's
 * `permanent` (SQLSTATE 22 data exception, 23 integrity constraint violation, 54000 a value too large
 * for an index, ...). The record responsible is isolated and dead-lettered. Everything else
 * (connection loss, deadlock, serialization failure, a bug) is thrown on: the runner retries what is
 * transient and crashes on the rest, and the chunk is re-applied from its checkpoint.
 */
export function isDataError(err: unknown): boolean {
  return err instanceof PoisonRecordError || classifyError(err) === 'permanent';
}

export { reasonOf } from '@holdfast/kafka';

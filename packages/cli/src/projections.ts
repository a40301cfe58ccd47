import type * as Projections from '@holdfast/projections';

export type { DeadLetterRow, RebuildProgress } from '@holdfast/read-models';

/**
 * The projections' operator operations (`holdfast replay`, `holdfast dlq`), loaded when such a command
 * runs: the projection engine (codec, Kafka runner, COPY streams) is not worth loading for every other
 * command, nor for `--help`. The specifier is a literal, so the compiler, lint and the dependency graph
 * see the arrow (it once was a computed string that none of them could follow).
 */
export function loadProjections(): Promise<typeof Projections> {
  return import('@holdfast/projections');
}

import type { ReadModelOperations } from '@holdfast/read-models';

export type {
  DeadLetterRow,
  RebuildProgress,
  ReadModelOperations as ProjectorPort,
} from '@holdfast/read-models';

/**
 * Loads the projector behind its port (`ReadModelOperations` of `@holdfast/read-models`) when a
 * command runs: the CLI depends on the port, not on the service, and the projector's module graph
 * (codec, Kafka runner, COPY streams) is not worth loading for every other command, nor for `--help`.
 */
export function loadProjector(): Promise<ReadModelOperations> {
  const specifier = '@holdfast/projector';
  return import(/* @vite-ignore */ specifier) as Promise<ReadModelOperations>;
}

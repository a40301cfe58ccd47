import { describe, expect, it } from 'vitest';
import * as projector from '@holdfast/projector';
import type { ProjectorPort } from './projector-port.js';

// Type-checked by `tsc -b` (tsconfig.tests.json): the projector's module must satisfy the port the CLI
// depends on (`ReadModelOperations` of @holdfast/read-models), or this line fails to compile.
const port: ProjectorPort = projector;

describe('the projector behind the CLI', () => {
  it('given the projector module, then every operation of the port is a function', () => {
    const ops = [
      'listDeadLetters',
      'redriveDeadLetters',
      'connectProjectorDeps',
      'rebuildReadModels',
      'importReferenceRates',
      'unconvertedOrders',
      'setReportingCurrency',
      'FxInputError',
    ] as const satisfies readonly (keyof ProjectorPort)[];
    for (const op of ops) expect(typeof port[op], op).toBe('function');
  });
});

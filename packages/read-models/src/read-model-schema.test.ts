import { describe, expect, it } from 'vitest';
import { DEFAULT_READ_MODEL_SCHEMA, readModelSchemaOf } from './ensure-read-model-schema.js';

describe('readModelSchemaOf', () => {
  it('given nothing set, then the default schema', () => {
    expect(readModelSchemaOf({})).toBe(DEFAULT_READ_MODEL_SCHEMA);
    expect(DEFAULT_READ_MODEL_SCHEMA).toBe('read_models');
  });

  it('given HOLDFAST_READ_SCHEMA, then that schema', () => {
    expect(readModelSchemaOf({ HOLDFAST_READ_SCHEMA: 'rm_a' })).toBe('rm_a');
  });

  it('given an explicit option too, then the option wins', () => {
    expect(readModelSchemaOf({ HOLDFAST_READ_SCHEMA: 'rm_a' }, 'rm_b')).toBe('rm_b');
  });
});

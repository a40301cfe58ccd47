import { describe, expect, it } from 'vitest';
import { whileSubjectSettles } from './codec.js';

function named(name: string): Error {
  const err = new Error(`${name} happened`);
  err.name = name;
  return err;
}

describe('whileSubjectSettles', () => {
  it('registers again while a concurrent first registration has not set the compatibility yet', async () => {
    let calls = 0;
    const id = await whileSubjectSettles(
      () => {
        calls++;
        if (calls < 3) return Promise.reject(named('ConfluentSchemaRegistryCompatibilityError'));
        return Promise.resolve({ id: 7 });
      },
      10,
      1,
    );
    expect(id).toEqual({ id: 7 });
    expect(calls).toBe(3);
  });

  it('registers again when both processes set the compatibility and this one lost (409)', async () => {
    let calls = 0;
    const conflict = Object.assign(named('ResponseError'), { status: 409 });
    const id = await whileSubjectSettles(
      () => (++calls === 1 ? Promise.reject(conflict) : Promise.resolve(3)),
      10,
      1,
    );
    expect([id, calls]).toEqual([3, 2]);
  });

  it('throws any other failure at once', async () => {
    let calls = 0;
    const failing = whileSubjectSettles(
      () => {
        calls++;
        return Promise.reject(
          Object.assign(named('ConfluentSchemaRegistryInvalidSchemaError'), { status: 422 }),
        );
      },
      10,
      1,
    );
    await expect(failing).rejects.toThrow('ConfluentSchemaRegistryInvalidSchemaError happened');
    expect(calls).toBe(1);
  });

  it('throws a mismatch that outlasts the attempts', async () => {
    let calls = 0;
    const failing = whileSubjectSettles(
      () => {
        calls++;
        return Promise.reject(named('ConfluentSchemaRegistryCompatibilityError'));
      },
      4,
      1,
    );
    await expect(failing).rejects.toThrow('ConfluentSchemaRegistryCompatibilityError happened');
    expect(calls).toBe(4);
  });
});

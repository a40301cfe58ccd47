import argon2 from 'argon2';

/**
 * argon2id with OWASP's second recommended setting (19 MiB, 2 passes, 1 lane): memory-hard, and
 * light enough that a 2-core host signs people in without queueing. Stored as a PHC string, so the
 * parameters travel with each hash and can be raised later.
 */
const OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, OPTIONS);
}

/** A hash of nothing anyone knows: an unknown address costs the same time as a wrong password. */
let decoy: Promise<string> | undefined;

/**
 * Whether `password` matches `hash`; with no hash (an unknown address, an invitation not accepted)
 * a decoy hash is verified, so the answer takes as long and is false.
 */
export async function verifyPassword(hash: string | null | undefined, password: string): Promise<boolean> {
  if (!hash) {
    decoy ??= argon2.hash(`decoy-${Math.random()}`, OPTIONS);
    await argon2.verify(await decoy, password);
    return false;
  }
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}

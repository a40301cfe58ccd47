/**
 * A readiness probe of the schema registry: `GET <url>/subjects` answers 2xx within `timeoutMs`.
 *
 * @example
 * readiness.add('registry', registryProbe(config.schemaRegistryUrl));
 */
export function registryProbe(
  registryUrl: string,
  auth?: { readonly username: string; readonly password: string },
  timeoutMs = 2_000,
): () => Promise<void> {
  // Where the registry asks for credentials (HOLDFAST_REGISTRY_USERNAME), the probe sends them too.
  const headers: Record<string, string> = auth
    ? { authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}` }
    : {};
  return async () => {
    const res = await fetch(`${registryUrl.replace(/\/$/, '')}/subjects`, {
      headers,
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.arrayBuffer();
    if (!res.ok)
      throw Object.assign(new Error('registry not ready'), { name: 'RegistryNotReady', status: res.status });
  };
}

/**
 * A readiness probe of PostgreSQL: `select 1` on the service's own pool (so it also proves the pool
 * can open connections).
 */
export function postgresProbe(pool: { query(sql: string): Promise<unknown> }): () => Promise<void> {
  return async () => {
    // Named like @holdfast/postgres' rawQuery names its statements (platform sits below it, so by hand).
    await pool.query('/* probes.postgres */ select 1');
  };
}

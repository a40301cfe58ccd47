import { readFileSync } from 'node:fs';
import type { EnvReader } from './config.js';

/**
 * DATABASE_URL, with its password taken from the file HOLDFAST_DATABASE_PASSWORD_FILE when set
 * (container secrets are files; a password in a URL would show in `docker inspect` and process
 * listings). A trailing newline of the file is not part of the password.
 *
 * @example
 * // DATABASE_URL=postgres://holdfast_gateway@postgres:5432/holdfast
 * // HOLDFAST_DATABASE_PASSWORD_FILE=/run/secrets/gateway_db_password
 * const url = readDatabaseUrl(new EnvReader(process.env));
 */
export function readDatabaseUrl(r: EnvReader): string {
  const url = r.string('DATABASE_URL');
  const file = r.optional('HOLDFAST_DATABASE_PASSWORD_FILE');
  if (file === undefined || url === '') return url;
  let password: string;
  try {
    password = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  } catch (err) {
    r.problem(
      `HOLDFAST_DATABASE_PASSWORD_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
    return url;
  }
  try {
    const u = new URL(url);
    u.password = encodeURIComponent(password);
    return u.toString();
  } catch {
    r.problem('DATABASE_URL is not a URL (HOLDFAST_DATABASE_PASSWORD_FILE needs one)');
    return url;
  }
}

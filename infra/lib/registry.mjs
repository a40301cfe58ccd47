// Apicurio Registry 3.x (Confluent-compatible API under /apis/ccompat/v7), schemas stored in PostgreSQL.
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDatabase } from './postgres.mjs';
import { logFile, portOpen, readPid, run, startDaemon, waitUntil } from './proc.mjs';

// 3.0.x is the newest line built for Java 17 (3.1+ needs Java 21).
function home(settings) {
  return join(settings.installDir, `apicurio-registry-${settings.registry.version}`);
}

export function registryUrl(settings) {
  return `http://${settings.registry.host}:${settings.registry.port}/apis/ccompat/v7`;
}

async function ensureInstalled(settings, log) {
  const dir = home(settings);
  const find = () => (existsSync(dir) ? readdirSync(dir).find((f) => f.endsWith('-runner.jar')) : undefined);
  if (find()) return join(dir, find());
  const v = settings.registry.version;
  log(`fetching Apicurio Registry ${v} from Maven Central (once, ~110 MB) ...`);
  const dl = join(settings.installDir, 'downloads');
  mkdirSync(dl, { recursive: true });
  mkdirSync(dir, { recursive: true });
  await run('mvn', [
    '-q',
    '-B',
    'dependency:copy',
    `-Dartifact=io.apicurio:apicurio-registry-app:${v}:tar.gz:all`,
    `-DoutputDirectory=${dl}`,
  ]);
  await run('tar', ['xzf', join(dl, `apicurio-registry-app-${v}-all.tar.gz`), '-C', dir]);
  const jar = find();
  if (!jar) throw new Error(`the Apicurio archive has no *-runner.jar; look in ${dir}`);
  return join(dir, jar);
}

async function answers(settings) {
  try {
    const res = await fetch(`${registryUrl(settings)}/subjects`, { signal: AbortSignal.timeout(1500) });
    return res.ok;
  } catch {
    return false;
  }
}

/** Starts the registry unless one answers already; returns its ccompat base URL. */
export async function startRegistry(settings, databaseUrl, log) {
  const r = settings.registry;
  const url = registryUrl(settings);
  if (await portOpen(r.host, r.port)) {
    if (await answers(settings)) {
      log(`registry: reusing ${url}${readPid(settings, 'registry') ? '' : ' (not started by us)'}`);
      return url;
    }
    throw new Error(
      `port ${r.port} is taken by something that is not the registry; set HOLDFAST_REGISTRY_PORT`,
    );
  }
  const jar = await ensureInstalled(settings, log);
  await ensureDatabase(databaseUrl, r.database);
  const db = new URL(databaseUrl);
  const pid = startDaemon(
    settings,
    'registry',
    'java',
    [
      `-Xmx${r.heap}`,
      '-XX:+UseSerialGC',
      '-Djava.util.logging.manager=org.jboss.logmanager.LogManager',
      '-jar',
      jar,
    ],
    {
      cwd: home(settings),
      env: {
        QUARKUS_HTTP_HOST: r.host,
        QUARKUS_HTTP_PORT: String(r.port),
        QUARKUS_MANAGEMENT_HOST: r.host,
        QUARKUS_MANAGEMENT_PORT: String(r.managementPort),
        QUARKUS_HTTP_ACCESS_LOG_ENABLED: 'false',
        APICURIO_STORAGE_KIND: 'sql',
        APICURIO_STORAGE_SQL_KIND: 'postgresql',
        APICURIO_DATASOURCE_URL: `jdbc:postgresql://${db.hostname}:${db.port || 5432}/${r.database}`,
        APICURIO_DATASOURCE_USERNAME: decodeURIComponent(db.username) || 'postgres',
        APICURIO_DATASOURCE_PASSWORD: decodeURIComponent(db.password) || 'unused',
      },
    },
  );
  const logPath = logFile(settings, 'registry');
  await waitUntil('registry', () => answers(settings), { deadlineMs: 120_000, log: logPath, pid });
  log(`registry: started on ${url} (pid ${pid}, log ${logPath})`);
  return url;
}

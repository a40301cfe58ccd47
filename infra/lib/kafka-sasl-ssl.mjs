// A private single-node Kafka whose only client listener is SASL_SSL (SCRAM-SHA-512 over TLS), with a
// CA and broker certificate made on the spot: what production looks like from a client, for the
// transport e2e test. Reuses the cached Kafka jars of the local stack; never touches the shared broker.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureKafkaInstalled } from './kafka.mjs';
import { isAlive, portOpen, run, waitUntil } from './proc.mjs';
import { loadSettings } from './settings.mjs';

/** Makes a throw-away CA and a broker certificate for 127.0.0.1/localhost (PEM, PKCS#8 keys) in `dir`. */
export async function makeCertificates(dir) {
  const p = (f) => join(dir, f);
  const days = '2';
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    days,
    '-subj',
    '/CN=holdfast test CA',
    '-keyout',
    p('ca.key'),
    '-out',
    p('ca.pem'),
  ]);
  await run('openssl', [
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=localhost',
    '-keyout',
    p('broker.key'),
    '-out',
    p('broker.csr'),
  ]);
  writeFileSync(
    p('broker.ext'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n',
  );
  await run('openssl', [
    'x509',
    '-req',
    '-in',
    p('broker.csr'),
    '-CA',
    p('ca.pem'),
    '-CAkey',
    p('ca.key'),
    '-CAcreateserial',
    '-days',
    days,
    '-extfile',
    p('broker.ext'),
    '-out',
    p('broker.pem'),
  ]);
  // Kafka's PEM keystore: the private key, then the certificate chain, in one file.
  const { readFileSync } = await import('node:fs');
  writeFileSync(
    p('broker-keystore.pem'),
    readFileSync(p('broker.key'), 'utf8') +
      readFileSync(p('broker.pem'), 'utf8') +
      readFileSync(p('ca.pem'), 'utf8'),
  );
  return { caFile: p('ca.pem'), keystoreFile: p('broker-keystore.pem') };
}

/**
 * Starts the broker in `dir` on 127.0.0.1:`port` (SASL_SSL) with its KRaft controller on
 * `controllerPort`, SCRAM-SHA-512 users `users` (name → password) plus the broker's own, and resolves
 * once an authenticated client gets an answer. `stop()` kills it (its process group) and waits.
 */
export async function startSaslSslKafka({ dir, port, controllerPort, users, log = () => {} }) {
  const settings = loadSettings();
  for (const p of [port, controllerPort])
    if (await portOpen('127.0.0.1', p))
      throw new Error(`port ${p} is taken: choose another for the SASL_SSL broker`);
  mkdirSync(dir, { recursive: true });
  const libs = await ensureKafkaInstalled(settings, log);
  const { caFile, keystoreFile } = await makeCertificates(dir);
  const interBroker = { name: 'broker', password: 'broker-secret' };
  const jaas = (u) =>
    `org.apache.kafka.common.security.scram.ScramLoginModule required username="${u.name}" password="${u.password}";`;
  const props = join(dir, 'server.properties');
  writeFileSync(
    props,
    [
      'process.roles=broker,controller',
      'node.id=1',
      `controller.quorum.voters=1@127.0.0.1:${controllerPort}`,
      `listeners=SASL_SSL://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
      `advertised.listeners=SASL_SSL://127.0.0.1:${port}`,
      'controller.listener.names=CONTROLLER',
      'inter.broker.listener.name=SASL_SSL',
      'listener.security.protocol.map=CONTROLLER:PLAINTEXT,SASL_SSL:SASL_SSL',
      'sasl.enabled.mechanisms=SCRAM-SHA-512',
      'sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512',
      `listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=${jaas(interBroker)}`,
      'ssl.keystore.type=PEM',
      `ssl.keystore.location=${keystoreFile}`,
      'ssl.truststore.type=PEM',
      `ssl.truststore.location=${caFile}`,
      'ssl.endpoint.identification.algorithm=https',
      `log.dirs=${join(dir, 'data')}`,
      'num.partitions=1',
      'offsets.topic.replication.factor=1',
      'offsets.topic.num.partitions=1',
      'transaction.state.log.replication.factor=1',
      'transaction.state.log.min.isr=1',
      'transaction.state.log.num.partitions=1',
      'group.initial.rebalance.delay.ms=0',
      'auto.create.topics.enable=false',
      'num.network.threads=1',
      'num.io.threads=2',
    ].join('\n') + '\n',
  );
  const log4j = join(dir, 'log4j.properties');
  writeFileSync(
    log4j,
    [
      'log4j.rootLogger=WARN, stdout',
      'log4j.appender.stdout=org.apache.log4j.ConsoleAppender',
      'log4j.appender.stdout.layout=org.apache.log4j.PatternLayout',
      'log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n',
    ].join('\n') + '\n',
  );
  const cp = `${libs}/*`;
  const scram = [
    interBroker,
    ...Object.entries(users).map(([name, password]) => ({ name, password })),
  ].flatMap((u) => ['--add-scram', `SCRAM-SHA-512=[name=${u.name},password=${u.password}]`]);
  await run('java', [
    '-cp',
    cp,
    'kafka.tools.StorageTool',
    'format',
    '-t',
    randomBytes(16).toString('base64url'),
    '-c',
    props,
    ...scram,
  ]);
  const logPath = join(dir, 'kafka.log');
  const fd = openSync(logPath, 'a');
  const child = spawn(
    'java',
    [
      '-Xmx256m',
      '-Xms256m',
      '-XX:+UseSerialGC',
      '-XX:TieredStopAtLevel=1',
      '-Djava.awt.headless=true',
      `-Dlog4j.configuration=file:${log4j}`,
      '-cp',
      cp,
      'kafka.Kafka',
      props,
    ],
    { detached: true, stdio: ['ignore', fd, fd] },
  );
  child.unref();
  const pid = child.pid;
  const stop = async () => {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
    while (isAlive(pid)) await new Promise((r) => setTimeout(r, 50));
  };
  try {
    await waitUntil('SASL_SSL kafka', () => portOpen('127.0.0.1', port), {
      deadlineMs: 60_000,
      log: logPath,
      pid,
    });
  } catch (err) {
    await stop();
    throw err;
  }
  return { brokers: `127.0.0.1:${port}`, caFile, logPath, pid, stop };
}

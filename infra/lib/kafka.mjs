// Apache Kafka as a single-node KRaft broker+controller, from Maven Central jars, on loopback.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { logFile, portOpen, readPid, run, startDaemon, waitUntil } from './proc.mjs';

const pom = fileURLToPath(new URL('../maven/kafka-pom.xml', import.meta.url));

function home(settings) {
  return join(settings.installDir, `kafka-${settings.kafka.version}`);
}

/** Resolves the broker's runtime classpath into the cache (once). */
export async function ensureKafkaInstalled(settings, log) {
  const libs = join(home(settings), 'libs');
  if (existsSync(libs) && readdirSync(libs).some((f) => f.startsWith('kafka_2.13-'))) return libs;
  log(`fetching Kafka ${settings.kafka.version} from Maven Central (once) ...`);
  mkdirSync(libs, { recursive: true });
  await run('mvn', [
    '-q',
    '-B',
    '-f',
    pom,
    `-Dkafka.version=${settings.kafka.version}`,
    'dependency:copy-dependencies',
    '-DincludeScope=runtime',
    `-DoutputDirectory=${libs}`,
  ]);
  return libs;
}

function writeConfig(settings) {
  const { host, port, controllerPort } = settings.kafka;
  const dir = settings.runDir;
  mkdirSync(dir, { recursive: true });
  const logDir = join(settings.dataDir, 'kafka');
  mkdirSync(logDir, { recursive: true });
  const props = [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@${host}:${controllerPort}`,
    `listeners=PLAINTEXT://${host}:${port},CONTROLLER://${host}:${controllerPort}`,
    `advertised.listeners=PLAINTEXT://${host}:${port}`,
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    'listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
    `log.dirs=${logDir}`,
    'num.partitions=1',
    'default.replication.factor=1',
    'min.insync.replicas=1',
    'offsets.topic.replication.factor=1',
    'offsets.topic.num.partitions=4',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'transaction.state.log.num.partitions=4',
    'group.initial.rebalance.delay.ms=0',
    // Topics are created explicitly with their settings; auto-creation hides typos.
    'auto.create.topics.enable=false',
    // The log is the source of truth: nothing expires by default.
    'log.retention.ms=-1',
    'num.network.threads=2',
    'num.io.threads=4',
    'message.max.bytes=33554432',
    'replica.fetch.max.bytes=33554432',
  ].join('\n');
  writeFileSync(join(dir, 'server.properties'), props + '\n');
  writeFileSync(
    join(dir, 'log4j.properties'),
    [
      'log4j.rootLogger=INFO, stdout',
      'log4j.appender.stdout=org.apache.log4j.ConsoleAppender',
      'log4j.appender.stdout.layout=org.apache.log4j.PatternLayout',
      'log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n',
      'log4j.logger.kafka.request.logger=WARN',
      'log4j.logger.org.apache.kafka=WARN',
      'log4j.logger.kafka=WARN',
      'log4j.logger.kafka.server.KafkaRaftServer=INFO',
    ].join('\n') + '\n',
  );
  return { logDir, props: join(dir, 'server.properties'), log4j: join(dir, 'log4j.properties') };
}

async function brokerAnswers(settings) {
  const { Kafka, logLevel } = await import('kafkajs');
  const kafka = new Kafka({
    brokers: [`${settings.kafka.host}:${settings.kafka.port}`],
    logLevel: logLevel.NOTHING,
    retry: { retries: 0 },
    connectionTimeout: 1000,
  });
  const admin = kafka.admin();
  try {
    await admin.connect();
    await admin.describeCluster();
    return true;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

/** Starts the broker unless one already answers; returns its bootstrap address. */
export async function startKafka(settings, log) {
  const { host, port } = settings.kafka;
  const brokers = `${host}:${port}`;
  if (await portOpen(host, port)) {
    if (await brokerAnswers(settings)) {
      log(
        `kafka: reusing the broker on ${brokers}${readPid(settings, 'kafka') ? '' : ' (not started by us)'}`,
      );
      return brokers;
    }
    throw new Error(`port ${port} is taken by something that is not a Kafka broker; set HOLDFAST_KAFKA_PORT`);
  }
  const libs = await ensureKafkaInstalled(settings, log);
  const cfg = writeConfig(settings);
  const cp = `${libs}/*`;
  if (!existsSync(join(cfg.logDir, 'meta.properties'))) {
    const id = (await run('java', ['-cp', cp, 'kafka.tools.StorageTool', 'random-uuid']))
      .trim()
      .split('\n')
      .pop();
    await run('java', [
      '-cp',
      cp,
      'kafka.tools.StorageTool',
      'format',
      '-t',
      id,
      '-c',
      cfg.props,
      '--ignore-formatted',
    ]);
  }
  const heap = settings.kafka.heap;
  const pid = startDaemon(settings, 'kafka', 'java', [
    `-Xmx${heap}`,
    `-Xms${heap}`,
    '-XX:+UseG1GC',
    '-Djava.awt.headless=true',
    `-Dlog4j.configuration=file:${cfg.log4j}`,
    '-cp',
    cp,
    'kafka.Kafka',
    cfg.props,
  ]);
  const logPath = logFile(settings, 'kafka');
  await waitUntil('kafka', () => portOpen(host, port), { deadlineMs: 90_000, log: logPath, pid });
  await waitUntil('kafka', () => brokerAnswers(settings), { deadlineMs: 60_000, log: logPath, pid });
  log(`kafka: started on ${brokers} (pid ${pid}, log ${logPath})`);
  return brokers;
}

// Apache Kafka in KRaft mode from Maven Central jars, on loopback: one broker+controller, or (with
// `kafka.brokers` > 1, `npm run infra:up -- --brokers 3`) a cluster of combined broker+controller nodes
// whose controllers form the quorum, with replication factor 3 and min.insync.replicas 2.
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

/**
 * The nodes of the local cluster. One broker keeps the historical layout (pid/log name `kafka`, data
 * in `kafka/`); in a cluster node i listens on port + 2(i−1) and its controller on
 * controllerPort + 2(i−1) (9092/9093, 9094/9095, 9096/9097 by default), named `kafka-i`.
 */
export function kafkaNodes(settings) {
  const { host, port, controllerPort } = settings.kafka;
  const n = Number(settings.kafka.brokers ?? 1);
  if (!Number.isInteger(n) || n < 1 || n > 9) throw new Error(`kafka.brokers must be 1..9, not ${n}`);
  return Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    name: n === 1 ? 'kafka' : `kafka-${i + 1}`,
    host,
    port: port + 2 * i,
    controllerPort: controllerPort + 2 * i,
    logDir: join(settings.dataDir, n === 1 ? 'kafka' : `kafka-${i + 1}`),
  }));
}

/** Replication of the cluster's internal and default topics: 3/2 from three brokers on, else 1/1. */
export function kafkaReplication(settings) {
  const n = Number(settings.kafka.brokers ?? 1);
  return n >= 3
    ? { replicationFactor: 3, minInsyncReplicas: 2 }
    : { replicationFactor: 1, minInsyncReplicas: 1 };
}

function writeConfig(settings, node, nodes) {
  const { host } = node;
  const { replicationFactor: rf, minInsyncReplicas: isr } = kafkaReplication(settings);
  const dir = settings.runDir;
  mkdirSync(dir, { recursive: true });
  mkdirSync(node.logDir, { recursive: true });
  const props = [
    'process.roles=broker,controller',
    `node.id=${node.id}`,
    `controller.quorum.voters=${nodes.map((n) => `${n.id}@${n.host}:${n.controllerPort}`).join(',')}`,
    `listeners=PLAINTEXT://${host}:${node.port},CONTROLLER://${host}:${node.controllerPort}`,
    `advertised.listeners=PLAINTEXT://${host}:${node.port}`,
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    'listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
    `log.dirs=${node.logDir}`,
    'num.partitions=1',
    `default.replication.factor=${rf}`,
    `min.insync.replicas=${isr}`,
    `offsets.topic.replication.factor=${rf}`,
    'offsets.topic.num.partitions=4',
    `transaction.state.log.replication.factor=${rf}`,
    `transaction.state.log.min.isr=${isr}`,
    'transaction.state.log.num.partitions=4',
    'group.initial.rebalance.delay.ms=0',
    // A replica that lost its leader must not become leader with less than the acknowledged log.
    'unclean.leader.election.enable=false',
    // Topics are created explicitly with their settings; auto-creation hides typos.
    'auto.create.topics.enable=false',
    // The log is the source of truth: nothing expires by default.
    'log.retention.ms=-1',
    'num.network.threads=2',
    'num.io.threads=4',
    'message.max.bytes=33554432',
    'replica.fetch.max.bytes=33554432',
  ].join('\n');
  const propsFile = join(dir, `${node.name === 'kafka' ? 'server' : node.name}.properties`);
  writeFileSync(propsFile, props + '\n');
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
  return { logDir: node.logDir, props: propsFile, log4j: join(dir, 'log4j.properties') };
}

async function brokerAnswers(node) {
  const { Kafka, logLevel } = await import('kafkajs');
  const kafka = new Kafka({
    brokers: [`${node.host}:${node.port}`],
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

/**
 * Starts every node that does not answer yet (so after one broker of a cluster was killed, `up`
 * restarts that one and reuses the others); returns the bootstrap list.
 */
export async function startKafka(settings, log) {
  const nodes = kafkaNodes(settings);
  const brokers = nodes.map((n) => `${n.host}:${n.port}`).join(',');
  const toStart = [];
  for (const node of nodes) {
    if (await portOpen(node.host, node.port)) {
      if (await brokerAnswers(node)) {
        // A lone broker someone else started is fine to use; as a cluster node it would not be one of
        // this cluster's voters, and the nodes started next to it would never form a quorum.
        if (nodes.length > 1 && !readPid(settings, node.name))
          throw new Error(
            `a broker this stack did not start answers on ${node.host}:${node.port}; stop it or move the cluster (HOLDFAST_KAFKA_PORT, HOLDFAST_KAFKA_CONTROLLER_PORT)`,
          );
        log(
          `${node.name}: reusing the broker on ${node.host}:${node.port}${readPid(settings, node.name) ? '' : ' (not started by us)'}`,
        );
        continue;
      }
      // A cluster node whose quorum is not back yet answers nothing: started by us, it is waited for.
      if (nodes.length > 1 && readPid(settings, node.name)) {
        toStart.push({ node, pid: readPid(settings, node.name), waited: true });
        continue;
      }
      throw new Error(
        `port ${node.port} is taken by something that is not a Kafka broker; set HOLDFAST_KAFKA_PORT`,
      );
    }
    toStart.push({ node });
  }
  if (toStart.length === 0) return brokers;
  const libs = await ensureKafkaInstalled(settings, log);
  const cp = `${libs}/*`;
  // The controllers must all be launched before any can be waited for: a quorum of one is not one.
  for (const entry of toStart) {
    if (entry.pid) continue;
    const { node } = entry;
    const cfg = writeConfig(settings, node, nodes);
    if (!existsSync(join(cfg.logDir, 'meta.properties'))) {
      // One cluster id for every node of a cluster (they must agree); a random one for a lone broker.
      const id =
        nodes.length > 1
          ? settings.kafka.clusterId
          : (await run('java', ['-cp', cp, 'kafka.tools.StorageTool', 'random-uuid']))
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
    entry.pid = startDaemon(settings, node.name, 'java', [
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
  }
  for (const { node, pid, waited } of toStart) {
    const logPath = logFile(settings, node.name);
    await waitUntil(node.name, () => portOpen(node.host, node.port), {
      deadlineMs: 90_000,
      log: logPath,
      pid,
    });
    await waitUntil(node.name, () => brokerAnswers(node), { deadlineMs: 90_000, log: logPath, pid });
    log(
      `${node.name}: ${waited ? 'answers again' : 'started'} on ${node.host}:${node.port} (pid ${pid}, log ${logPath})`,
    );
  }
  return brokers;
}

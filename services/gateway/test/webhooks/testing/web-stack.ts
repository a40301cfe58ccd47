// Test support (not shipped behaviour): the gateway and the projector in this process, on one test
// file's database and topics, for the webhook, pixel and browser tests.
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  IdempotentBatchAppender,
  LogPositions,
  TransactionalAppender,
  type Appender,
  type SinglePartitionAppender,
} from '@holdfast/kafka';
import { silentLogger } from '@holdfast/platform';
import type { TestEnv } from '@holdfast/testing';
// By path until vitest.config.ts aliases @holdfast/<service> to sources like the packages (it maps
// packages/* only, and a service's `default` export points at dist/).
import { startProjector, type RunningProjector } from '@holdfast/projector';
import { createGateway } from '../../../src/app.js';
import type { Clock } from '../../../src/clock.js';
import { loadGatewayConfig, type GatewayConfig } from '../../../src/config.js';
import { createGatewayServer } from '../../../src/http/server.js';
import { DEFAULT_READ_MODEL_SCHEMA } from '@holdfast/read-models';

export interface WebStack {
  readonly url: string;
  /** The HTTP server, for tests that watch what reaches the gateway. */
  readonly server: Server;
  readonly appender: Appender;
  /** POST /pixel/collect's appender (an IdempotentBatchAppender unless the test passed one). */
  readonly pixelAppender: SinglePartitionAppender;
  close(): Promise<void>;
}

/**
 * Starts the real gateway (`createGateway`) on a free port of 127.0.0.1. Client IPs come from
 * X-Forwarded-For (trust proxy), so each test can fail authentication from its own IP.
 */
export async function startWebStack(
  t: TestEnv,
  opts: {
    clock?: Clock;
    appender?: Appender;
    pixelAppender?: SinglePartitionAppender;
    config?: Partial<GatewayConfig>;
  } = {},
): Promise<WebStack> {
  const config: GatewayConfig = { ...loadGatewayConfig(t.env), trustProxy: true, ...opts.config };
  const own = opts.appender
    ? null
    : await TransactionalAppender.create(t.kafka, { name: `${t.topicPrefix}gw`, size: 2 });
  const appender = opts.appender ?? own!;
  // The gateway process's pixel path: one idempotent produce request per collector request.
  const ownPixel = opts.pixelAppender ? null : await IdempotentBatchAppender.create(t.kafka, { size: 2 });
  const pixelAppender = opts.pixelAppender ?? ownPixel!;
  const logPositions = LogPositions.create(t.kafka, t.topicPrefix);
  const gateway = await createGateway(config, {
    pool: t.pool,
    appender,
    pixelAppender,
    codec: t.codec,
    logPositions,
    clock: opts.clock,
  });
  // The server main.ts runs: its timeouts and its JSON answers to what the HTTP parser refuses.
  const server = createGatewayServer(gateway.app, config).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    appender,
    pixelAppender,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gateway.close();
      await own?.close();
      await ownPixel?.close();
      await logPositions.close();
    },
  };
}

/**
 * Runs every projection in this process under its own consumer group. It resolves once the group is
 * joined (kafkajs' `consumer.run` awaits the join), so the first read-your-writes answer does not
 * pay for it.
 */
export function runProjector(t: TestEnv, group = 'projector'): Promise<RunningProjector> {
  return startProjector(
    {
      topicPrefix: t.topicPrefix,
      readSchema: DEFAULT_READ_MODEL_SCHEMA,
      groupId: `${t.topicPrefix}${group}`,
      sessionTimeoutMs: 6_000,
    },
    { pool: t.pool, kafka: t.kafka, codec: t.codec, logger: silentLogger },
  );
}

// The proxy's blackhole is a network that drops packets, then heals: nothing crosses while it lasts,
// and what was sent meanwhile arrives afterwards, in order, with no gap (TCP retransmits); a
// connection opened during it goes through once it ends.
import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { TcpProxy } from './tcp-proxy.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** An echo server behind a proxy; returns the proxy. */
async function echoBehindProxy(): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const echo = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.pipe(s);
  });
  echo.listen(0, '127.0.0.1');
  await once(echo, 'listening');
  const proxy = await TcpProxy.start('127.0.0.1', (echo.address() as AddressInfo).port);
  cleanups.push(async () => {
    await proxy.close();
    for (const s of sockets) s.destroy();
    await new Promise((r) => echo.close(r));
  });
  return proxy;
}

async function client(port: number): Promise<{ socket: Socket; received: () => string }> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let text = '';
  socket.on('data', (d: Buffer) => (text += d.toString()));
  cleanups.push(() => Promise.resolve(void socket.destroy()));
  return { socket, received: () => text };
}

describe('TcpProxy blackhole', () => {
  it('given an open connection, when blackholed, then nothing crosses until it ends, then everything in order', async () => {
    const proxy = await echoBehindProxy();
    const c = await client(proxy.port);
    c.socket.write('a');
    await sleep(50);
    expect(c.received()).toBe('a');
    proxy.blackhole();
    c.socket.write('b');
    c.socket.write('c');
    await sleep(100);
    expect(c.received()).toBe('a');
    proxy.forward();
    await sleep(100);
    expect(c.received()).toBe('abc');
  });

  it('given a connection opened during the blackhole, when it ends, then it reaches the upstream with what it sent', async () => {
    const proxy = await echoBehindProxy();
    proxy.blackhole();
    const c = await client(proxy.port);
    c.socket.write('hello');
    await sleep(100);
    expect(c.received()).toBe('');
    proxy.forward();
    await sleep(100);
    expect(c.received()).toBe('hello');
  });
});

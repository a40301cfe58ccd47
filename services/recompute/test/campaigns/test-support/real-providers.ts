// Test support: the real providers a send reaches in the at-most-once tests (a real SMTP server with
// STARTTLS, an HTTP receiver in Twilio's Messages shape), connected to an account with sealed
// credentials, and a ledger wrapper that makes one of the production writes fail or the process die.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Kysely } from 'kysely';
import { setEmailProvider, setSmsProvider } from '@holdfast/control-plane';
import type { Database } from '@holdfast/postgres';
import type { SecretsKeyring } from '@holdfast/secrets';
import { parseOutboundAllow, STRICT_OUTBOUND_POLICY, type OutboundPolicy } from '@holdfast/platform';
import { startSmtpReceiver, type SmtpReceiver } from '@holdfast/testing';
import type { SendLedger } from '../../../src/campaigns/send-ledger.js';

export const SMS_SID = 'AC00000000000000000000000000000009';
export const SMS_TOKEN = 'at-most-once-token';
export const SMTP_USER = { user: 'relay', pass: 'relay-password' };

/** Local destinations allowed (the SMTP server and the SMS receiver listen on loopback). */
export const LOCAL_POLICY: OutboundPolicy = {
  ...STRICT_OUTBOUND_POLICY,
  allowHttp: true,
  allow: parseOutboundAllow('127.0.0.1:*,[::1]:*'),
};

/** An HTTP receiver in Twilio's shape: every POSTed form kept, answered 201. */
export interface SmsReceiver {
  readonly url: string;
  readonly forms: URLSearchParams[];
  close(): Promise<void>;
}

export async function startSmsReceiver(): Promise<SmsReceiver> {
  const forms: URLSearchParams[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      forms.push(new URLSearchParams(Buffer.concat(chunks).toString()));
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"sid":"SM1"}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    forms,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

export { startSmtpReceiver, type SmtpReceiver };

/** Connects the account's email (SMTP, STARTTLS, the receiver's CA) and SMS (Twilio shape) providers. */
export async function connectRealProviders(
  db: Kysely<Database>,
  accountId: string,
  smtp: SmtpReceiver,
  sms: SmsReceiver,
  keyring: SecretsKeyring,
): Promise<void> {
  await setEmailProvider(
    db,
    accountId,
    {
      provider: 'smtp',
      host: 'localhost',
      port: smtp.port,
      user: SMTP_USER.user,
      from: 'Tea <news@tea.example.com>',
      tls: 'starttls',
      ca: smtp.certPem,
    },
    SMTP_USER.pass,
    keyring,
  );
  await setSmsProvider(
    db,
    accountId,
    { provider: 'twilio', baseUrl: sms.url, accountSid: SMS_SID, from: '+12025550100' },
    SMS_TOKEN,
    keyring,
  );
}

/**
 * The production ledger with `markSent` replaced for the `nth` call (1-based) only: `fault` runs
 * instead of the write (throw to play a failed write; exit the process to play a crash). Every other
 * call, and every other write, is the production one.
 */
export function faultOnMarkSent(ledger: SendLedger, nth: number, fault: () => never): SendLedger {
  let calls = 0;
  return {
    ...ledger,
    markSent: (id, s) => (++calls === nth ? Promise.resolve().then(fault) : ledger.markSent(id, s)),
  };
}

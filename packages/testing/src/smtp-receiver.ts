// Test support: a real SMTP server (smtp-server) that requires authentication, offers STARTTLS with a
// self-signed certificate made with openssl, and parses what arrives with mailparser.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

/** One message as it arrived: the envelope, whether the session was TLS, and the parsed mail. */
export interface ReceivedMail {
  readonly secure: boolean;
  readonly user: string | undefined;
  readonly mailFrom: string | false;
  readonly rcptTo: readonly string[];
  readonly raw: string;
  readonly mail: ParsedMail;
}

export interface SmtpReceiver {
  readonly port: number;
  /** The certificate's PEM (CN and SAN localhost, 127.0.0.1): trust it as the provider's `ca`. */
  readonly certPem: string;
  readonly received: ReceivedMail[];
  /** SMTP reply codes to refuse the next RCPT TO with, one per message (e.g. 451, 550). */
  readonly refuseRcpt: number[];
  close(): Promise<void>;
}

/** A self-signed certificate for localhost, valid one day (openssl must be installed). */
export function selfSignedCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'hf-smtp-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return {
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Starts the receiver on 127.0.0.1 (port 0). `credentials` are the only ones accepted; smtp-server
 * refuses AUTH before STARTTLS (no `allowInsecureAuth`), so a client that does not upgrade cannot log
 * in. `options` overrides smtp-server's (e.g. `hideSTARTTLS: true` to play a server without TLS).
 */
export async function startSmtpReceiver(
  credentials: { user: string; pass: string },
  options: Partial<SMTPServerOptions> = {},
): Promise<SmtpReceiver> {
  const { key, cert } = selfSignedCertificate();
  const received: ReceivedMail[] = [];
  const refuseRcpt: number[] = [];
  const server = new SMTPServer({
    secure: false,
    key,
    cert,
    logger: false,
    disableReverseLookup: true,
    authMethods: ['PLAIN', 'LOGIN'],
    onAuth(auth, _session, cb) {
      if (auth.username === credentials.user && auth.password === credentials.pass)
        return cb(null, { user: auth.username });
      return cb(Object.assign(new Error('Invalid credentials'), { responseCode: 535 }));
    },
    onRcptTo(_address, _session, cb) {
      const code = refuseRcpt.shift();
      if (code) return cb(Object.assign(new Error(`refused ${code}`), { responseCode: code }));
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw)
          .then((mail) => {
            received.push({
              secure: session.secure,
              user: session.user as string | undefined,
              mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : false,
              rcptTo: session.envelope.rcptTo.map((r) => r.address),
              raw,
              mail,
            });
            cb();
          })
          .catch((err: Error) => cb(err));
      });
    },
    ...options,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    certPem: cert,
    received,
    refuseRcpt,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

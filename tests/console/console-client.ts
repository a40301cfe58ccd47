// Test support: a browser-less client of the console (a cookie jar, the forms' CSRF tokens, no
// redirects followed), and a signed-in person made through the real invitation and sign-in forms.
import { createAccount, inviteUser } from '@holdfast/control-plane';
import type { AccountRole, Database } from '@holdfast/postgres';
import type { Kysely } from 'kysely';
import { totpCode } from '@holdfast/console';

export class ConsoleClient {
  cookie: string | undefined;
  constructor(
    readonly base: string,
    private readonly origin = base,
  ) {}

  async get(path: string): Promise<{ status: number; text: string; headers: Headers }> {
    const r = await fetch(this.base + path, {
      redirect: 'manual',
      headers: this.cookie ? { cookie: this.cookie } : {},
    });
    this.keep(r);
    return { status: r.status, text: await r.text(), headers: r.headers };
  }

  async post(
    path: string,
    form: Record<string, string | readonly string[]>,
    opts: { origin?: string | null } = {},
  ): Promise<{ status: number; text: string; headers: Headers }> {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (this.cookie) headers.cookie = this.cookie;
    const origin = opts.origin === undefined ? this.origin : opts.origin;
    if (origin !== null) headers.origin = origin;
    const r = await fetch(this.base + path, {
      method: 'POST',
      redirect: 'manual',
      headers,
      // A list is a repeated field (checkboxes).
      body: new URLSearchParams(
        Object.entries(form).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v]] : v.map((x) => [k, x]))),
      ).toString(),
    });
    this.keep(r);
    return { status: r.status, text: await r.text(), headers: r.headers };
  }

  private keep(r: Response) {
    const set = r.headers.get('set-cookie');
    if (!set) return;
    const [pair] = set.split(';');
    this.cookie = pair!.endsWith('=') ? undefined : pair;
  }
}

/** The CSRF token in a page's forms. */
export function csrfOf(page: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(page);
  if (!m) throw new Error('no CSRF field on the page');
  return m[1]!;
}

/** A clock the test moves (each sign-in needs a fresh TOTP time step). */
export class TestClock {
  t = Date.parse('2026-11-27T12:00:00Z');
  now = () => new Date(this.t);
  step() {
    this.t += 30_000;
  }
}

export interface Person {
  readonly email: string;
  readonly password: string;
  readonly totpSecret: string;
  readonly userId: string;
  readonly client: ConsoleClient;
}

/** Invites `email` to `accountId`, accepts the invitation through the forms: a signed-in client. */
export async function invitedPerson(
  db: Kysely<Database>,
  base: string,
  clock: TestClock,
  accountId: string,
  email: string,
  role: AccountRole,
): Promise<Person> {
  const inv = await inviteUser(db, { email, accountId, role });
  const client = new ConsoleClient(base);
  const page = await client.get(`/invite/${inv.token}`);
  const secret = /name="totp_secret" value="([A-Z2-7]+)"/.exec(page.text)![1]!;
  const password = `correct horse ${email}`;
  clock.step();
  const done = await client.post(`/invite/${inv.token}`, {
    password,
    totp_secret: secret,
    code: totpCode(secret, clock.now()),
  });
  if (done.status !== 303) throw new Error(`invitation not accepted: ${done.status} ${done.text}`);
  return { email, password, totpSecret: secret, userId: inv.userId, client };
}

export async function newAccount(db: Kysely<Database>, name: string): Promise<string> {
  return (await createAccount(db, { name })).id;
}

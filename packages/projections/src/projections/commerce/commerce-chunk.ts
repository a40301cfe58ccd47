import type {
  CustomerEventReceived,
  CustomerUpserted,
  EventMetadata,
  OrderUpserted,
  ZeroPartySubmitted,
} from '@holdfast/contracts';
import {
  acquisitionChannel,
  consentSourceOf,
  customApiContentKey,
  decideIdentity,
  hasIdentity,
  orderWriteOf,
} from '@holdfast/domain';
import type { IdentifierIndexes } from '@holdfast/privacy';
import { PoisonRecordError, type ProjectedEvent } from '../../projection.js';
import { customerUuid } from './customer-id.js';
import { mergeCustomer, newCustomer, type CustomerPatch, type CustomerState } from './customer-state.js';
import type { IdentityKeys, IdentityResolver, LinkMethod } from './identity-index.js';
import { InstantKeys } from './instant-key.js';
import type { OrderWrite } from './write-orders.js';
import type { CustomerEventRow, ZeroPartyRow } from './write-webhook-rows.js';

/** The records of holdfast.commerce: everything that resolves customer identity shares one log. */
export type CommerceEventName =
  'OrderUpserted' | 'CustomerUpserted' | 'CustomerEventReceived' | 'ZeroPartySubmitted';

/**
 * A commerce record as the fold takes it (`openCommerce`): its personal fields back in clear when
 * its subject's key exists (null when shredded), its identifiers' blind indexes, and its subject.
 */
export type OpenedCommerceEvent = ProjectedEvent<CommerceEventName> & {
  readonly indexes: IdentifierIndexes;
  /** The subject whose key encrypted it (null: written in clear). */
  readonly subjectId: string | null;
  /** False when the subject's key is gone: the personal fields are null. */
  readonly readable: boolean;
};

/** A data subject whose key encrypted a record folded into a customer (read_models.customer_subjects). */
export interface CustomerSubjectWrite {
  readonly accountId: string;
  readonly customerId: string;
  readonly subjectId: string;
}

/** Stored state a chunk needs before it can fold: loaded once per chunk, in the chunk's transaction. */
export interface ChunkState {
  /** Every stored customer a record of the chunk could resolve to; the chunk adds and re-indexes. */
  readonly identities: IdentityResolver<CustomerState>;
  /** `account\0dedup_key` of stored customer events and zero-party submissions. */
  readonly storedEventKeys: ReadonlySet<string>;
  readonly storedSubmissionKeys: ReadonlySet<string>;
}

const key = (account: string, value: string) => `${account}\u0000${value}`;

/**
 * Folds a chunk of commerce records, in log order, into the writes that express it: the customers
 * created or changed, the order rows, and the webhook rows. Customers are merged in memory one record
 * at a time, starting from the rows loaded for the chunk, so identity resolution and the merge rules
 * see exactly what one-by-one application would, however the log is cut into chunks.
 */
export class CommerceChunk {
  readonly orders: OrderWrite[] = [];
  readonly customerEvents: CustomerEventRow[] = [];
  readonly zeroParty: ZeroPartyRow[] = [];
  readonly subjects: CustomerSubjectWrite[] = [];
  private readonly subjectKeys = new Set<string>();
  private readonly dirty = new Set<CustomerState>();
  private readonly created = new Set<CustomerState>();
  private readonly index: IdentityResolver<CustomerState>;
  private readonly eventKeys: Set<string>;
  private readonly submissionKeys: Set<string>;
  // acquisitionChannel per distinct source of the chunk: a backfill repeats a few labels thousands of
  // times, and the rule trims and matches a regular expression each time.
  private readonly channels = new Map<string, string | null>();
  private readonly accounts = new AccountIds();
  private readonly instants = new InstantKeys();

  constructor(state: ChunkState) {
    this.index = state.identities;
    this.eventKeys = new Set(state.storedEventKeys);
    this.submissionKeys = new Set(state.storedSubmissionKeys);
  }

  add(e: OpenedCommerceEvent): void {
    switch (e.type) {
      case 'OrderUpserted':
        return this.order(e.value, e);
      case 'CustomerUpserted':
        return this.customer(e.value, e);
      case 'CustomerEventReceived':
        return this.customerEvent(e.value, e);
      case 'ZeroPartySubmitted':
        return this.submission(e.value, e);
      default: {
        const never: never = e;
        throw new Error(`unhandled ${(never as { type: string }).type}`);
      }
    }
  }

  private channelOf(source: string | null): string | null {
    if (source === null) return null;
    let channel = this.channels.get(source);
    if (channel === undefined) this.channels.set(source, (channel = acquisitionChannel(source)));
    return channel;
  }

  /** The customers the chunk created, and the stored ones it changed, in first-touch order. */
  customerWrites(): { created: CustomerState[]; changed: CustomerState[] } {
    return { created: [...this.created], changed: [...this.dirty].filter((c) => !this.created.has(c)) };
  }

  /** Notes that `subjectId`'s key encrypted a record of `customerId` (once per chunk). */
  private subject(accountId: string, customerId: string, { subjectId }: OpenedCommerceEvent): void {
    if (subjectId === null) return;
    const k = `${accountId}\u0000${customerId}\u0000${subjectId}`;
    if (this.subjectKeys.has(k)) return;
    this.subjectKeys.add(k);
    this.subjects.push({ accountId, customerId, subjectId });
  }

  private order(e: OrderUpserted, opened: OpenedCommerceEvent): void {
    const { metadata: m, order: o } = e;
    const account = this.accounts.of(m);
    const ix = opened.indexes;
    // The patch doubles as the identity keys (a patch is keys plus fields): one object per order.
    // Emails and phones resolve by blind index; their values in clear only fill the row.
    const keys = {
      externalId: o.customer_id,
      email: ix.email,
      phone: ix.phone,
      emailClear: o.email,
      phoneClear: o.phone,
      name: o.customer_name,
    };
    let customerId: string | null = null;
    if (hasIdentity(keys)) {
      const { customer } = this.resolveOrCreate(account, m, keys);
      customerId = customer.customerId;
      this.merge(customer, keys, m.received_at);
      this.subject(account, customerId, opened);
    }
    this.orders.push({
      ...orderWriteOf(e, { accountId: account, customerId, receivedAt: m.received_at }),
      acquisitionChannel: this.channelOf(o.source),
    });
  }

  private customer({ metadata: m, customer: c }: CustomerUpserted, opened: OpenedCommerceEvent): void {
    const account = this.accounts.of(m);
    const keys = { externalId: c.external_id, email: opened.indexes.email, phone: opened.indexes.phone };
    if (!hasIdentity(keys)) throw new PoisonRecordError('customer row without external_id, email or phone');
    const { customer } = this.resolveOrCreate(account, m, keys);
    this.subject(account, customer.customerId, opened);
    this.merge(
      customer,
      {
        ...keys,
        emailClear: c.email,
        phoneClear: c.phone,
        name: c.name,
        address: c.address,
        consentMarketingEmail: c.consent?.marketing_email ?? null,
        consentSms: c.consent?.sms ?? null,
        consentSuppressed: c.consent?.suppressed ?? null,
        consentBounced: c.consent?.bounced ?? null,
        sourceLabel: c.source_label,
        subscriptionStatus: c.subscription_status,
        subscriptionStartedAt: c.subscription_started_at,
      },
      m.received_at,
    );
  }

  private customerEvent(
    { metadata: m, dedup_key, event: ev }: CustomerEventReceived,
    opened: OpenedCommerceEvent,
  ): void {
    const account = this.accounts.of(m);
    // A retried webhook (same dedup key) is answered as a duplicate and changes nothing.
    if (!claim(this.eventKeys, key(account, dedup_key))) return;
    const keys = { externalId: ev.external_id, email: opened.indexes.email, phone: opened.indexes.phone };
    if (!hasIdentity(keys)) throw new PoisonRecordError('customer event without external_id, email or phone');
    const { customer, method, isNew } = this.resolveOrCreate(account, m, keys);
    this.subject(account, customer.customerId, opened);
    this.merge(
      customer,
      {
        ...keys,
        emailClear: ev.email,
        phoneClear: ev.phone,
        name: ev.name,
        address: ev.address,
        consentMarketingEmail: ev.consent?.marketing_email ?? null,
        consentSms: ev.consent?.sms ?? null,
        consentSuppressed: ev.consent?.suppressed ?? null,
        consentBounced: ev.consent?.bounced ?? null,
        // The service's own unsubscribe/STOP locks the opt-out; START or a merchant's resubscribe lifts it.
        consentSource: consentSourceOf({ dedupKey: dedup_key, eventType: ev.event_type }),
        sourceLabel: ev.source_label,
      },
      m.received_at,
    );
    this.customerEvents.push({
      accountId: account,
      dedupKey: dedup_key,
      eventId: m.event_id,
      customerId: customer.customerId,
      linkMethod: method,
      isNew,
      eventType: ev.event_type,
      receivedAt: m.received_at,
      // Of the event as posted: unknown once its personal fields are shredded (as for events stored
      // before content keys were), so a replay after an erasure writes what the erasure wrote.
      contentKey: opened.readable ? customApiContentKey(ev) : null,
    });
  }

  private submission(s: ZeroPartySubmitted, opened: OpenedCommerceEvent): void {
    const m = s.metadata;
    const account = this.accounts.of(m);
    if (!claim(this.submissionKeys, key(account, s.dedup_key))) return;
    const keys = { externalId: s.external_customer_id, email: opened.indexes.email, phone: null };
    if (!hasIdentity(keys)) throw new PoisonRecordError('zero-party submission without email or external id');
    // A submission links to its customer without editing it (quiz answers are not a profile update);
    // it creates the customer when none matches, labelled with where it came from.
    const { customer, isNew } = this.resolveOrCreate(account, m, keys);
    this.subject(account, customer.customerId, opened);
    if (isNew)
      this.merge(
        customer,
        { ...keys, emailClear: s.email, sourceLabel: s.source_label ?? 'zero-party' },
        m.received_at,
      );
    this.zeroParty.push({
      accountId: account,
      dedupKey: s.dedup_key,
      eventId: m.event_id,
      customerId: customer.customerId,
      email: s.email,
      externalCustomerId: s.external_customer_id,
      interests: s.interests,
      attributesJson: s.attributes_json,
      sourceLabel: s.source_label,
      quizVersion: s.quiz_version,
      completedAt: s.completed_at,
      receivedAt: m.received_at,
    });
  }

  private resolveOrCreate(
    account: string,
    m: EventMetadata,
    keys: IdentityKeys,
  ): { customer: CustomerState; method: LinkMethod | 'created'; isNew: boolean } {
    // The domain's rule decides; the index only finds candidates. Each caller refuses a keyless record
    // with its own message first, so `refused` here is a caller's bug.
    const d = decideIdentity(this.index.lookup(account), keys);
    if (d.kind === 'matched') return { customer: d.identity, method: d.method, isNew: false };
    if (d.kind === 'refused') throw new PoisonRecordError('record without external_id, email or phone');
    const customer = newCustomer(
      account,
      customerUuid(account, m.event_id),
      m.received_at,
      this.instants.key,
    );
    this.index.add(customer);
    this.created.add(customer);
    return { customer, method: 'created', isNew: true };
  }

  /** Applies a record to a customer: the identity index now, the row at the end of the chunk. */
  private merge(customer: CustomerState, patch: CustomerPatch, receivedAt: string): void {
    const before = { externalId: customer.externalId, email: customer.email, phone: customer.phone };
    if (!mergeCustomer(customer, patch, receivedAt, this.instants.key)) return;
    this.index.reindex(customer, before);
    this.dirty.add(customer);
  }
}

/**
 * Account ids are UUIDs; PostgreSQL returns them lower-case, so memory keys use the same form. A
 * chunk is mostly one account: the same lower-cased string is handed out again (one allocation, and
 * map lookups reuse its cached hash). One per pass over a chunk (it remembers the last id only).
 */
export class AccountIds {
  private lastRaw = '';
  private lastLower = '';

  of(m: EventMetadata): string {
    const raw = m.account_id;
    if (raw !== this.lastRaw) {
      this.lastRaw = raw;
      this.lastLower = raw.toLowerCase();
    }
    return this.lastLower;
  }
}

function claim(keys: Set<string>, k: string): boolean {
  if (keys.has(k)) return false;
  keys.add(k);
  return true;
}

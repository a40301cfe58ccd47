import type {
  CustomerEventReceived,
  CustomerUpserted,
  EventTypes,
  OrderUpserted,
  PersonalData,
  ZeroPartySubmitted,
} from '@holdfast/contracts';

/** The records of holdfast.commerce that carry personal data (and `personal`). */
export type PersonalEventName =
  'OrderUpserted' | 'CustomerUpserted' | 'CustomerEventReceived' | 'ZeroPartySubmitted';

/** One of them, tagged with its name. */
export type PersonalEvent = {
  [K in PersonalEventName]: { readonly type: K; readonly value: EventTypes[K] };
}[PersonalEventName];

/** A record's identifiers in clear, as normalised by the gateway (lower-cased email, E.164 phone). */
export interface ClearIdentifiers {
  readonly externalId: string | null;
  readonly email: string | null;
  readonly phone: string | null;
}

/** The personal fields of a record, as sealed in `personal.ciphertext` (JSON). */
export type PersonalFields = Record<string, unknown>;

/**
 * The identifiers a record names, in clear (from the clear fields: call it before `withoutPersonal`,
 * or on a record written before encryption). External ids stay in clear in the log: they are the
 * merchant's pseudonymous reference (docs/privacy.md).
 */
export function identifiersOf(e: PersonalEvent): ClearIdentifiers {
  switch (e.type) {
    case 'OrderUpserted':
      return {
        externalId: e.value.order.customer_id,
        email: e.value.order.email,
        phone: e.value.order.phone,
      };
    case 'CustomerUpserted':
      return {
        externalId: e.value.customer.external_id,
        email: e.value.customer.email,
        phone: e.value.customer.phone,
      };
    case 'CustomerEventReceived':
      return {
        externalId: e.value.event.external_id,
        email: e.value.event.email,
        phone: e.value.event.phone,
      };
    case 'ZeroPartySubmitted':
      return { externalId: e.value.external_customer_id, email: e.value.email, phone: null };
  }
}

const hasAny = (fields: PersonalFields) => Object.values(fields).some((v) => v !== null && v !== undefined);

/**
 * Splits a record into its personal fields and the record with those fields null (what the log
 * carries in clear). `fields` is null when the record carries no personal value at all.
 */
export function withoutPersonal<E extends PersonalEvent>(
  e: E,
): { readonly value: E['value']; readonly fields: PersonalFields | null } {
  let value: PersonalEvent['value'];
  let fields: PersonalFields;
  switch (e.type) {
    case 'OrderUpserted': {
      const v = e.value;
      const o = v.order;
      fields = {
        email: o.email,
        phone: o.phone,
        customer_name: o.customer_name,
        shipping_city: o.shipping_city,
        shipping_state: o.shipping_state,
        shipping_zip: o.shipping_zip,
      };
      value = {
        ...v,
        order: {
          ...o,
          email: null,
          phone: null,
          customer_name: null,
          shipping_city: null,
          shipping_state: null,
          shipping_zip: null,
        },
      } satisfies OrderUpserted;
      break;
    }
    case 'CustomerUpserted': {
      const v = e.value;
      const c = v.customer;
      fields = { email: c.email, phone: c.phone, name: c.name, address: c.address };
      value = {
        ...v,
        customer: { ...c, email: null, phone: null, name: null, address: null },
      } satisfies CustomerUpserted;
      break;
    }
    case 'CustomerEventReceived': {
      const v = e.value;
      const c = v.event;
      fields = { email: c.email, phone: c.phone, name: c.name, address: c.address };
      value = {
        ...v,
        event: { ...c, email: null, phone: null, name: null, address: null },
      } satisfies CustomerEventReceived;
      break;
    }
    case 'ZeroPartySubmitted': {
      const v = e.value;
      // The free-form attributes may carry anything a quiz asked: sealed with the email.
      fields = { email: v.email, attributes_json: v.attributes_json };
      value = { ...v, email: null, attributes_json: null } satisfies ZeroPartySubmitted;
      break;
    }
  }
  return { value: value, fields: hasAny(fields) ? fields : null };
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
// Opened JSON of our own sealing: the shapes are the record's own (an address object or null).
const obj = <T>(v: unknown): T | null => (v !== null && typeof v === 'object' ? (v as T) : null);

/**
 * The record with its personal fields put back from `fields` (opened from `personal`); with `fields`
 * null (a shredded subject) the record stays as the log has it, its personal fields null.
 */
export function withPersonal<E extends PersonalEvent>(e: E, fields: PersonalFields | null): E['value'] {
  return restore(e, fields);
}

function restore(e: PersonalEvent, fields: PersonalFields | null): PersonalEvent['value'] {
  if (!fields) return e.value;
  switch (e.type) {
    case 'OrderUpserted': {
      const v = e.value;
      return {
        ...v,
        order: {
          ...v.order,
          email: str(fields.email),
          phone: str(fields.phone),
          customer_name: str(fields.customer_name),
          shipping_city: str(fields.shipping_city),
          shipping_state: str(fields.shipping_state),
          shipping_zip: str(fields.shipping_zip),
        },
      } satisfies OrderUpserted;
    }
    case 'CustomerUpserted': {
      const v = e.value;
      return {
        ...v,
        customer: {
          ...v.customer,
          email: str(fields.email),
          phone: str(fields.phone),
          name: str(fields.name),
          address: obj(fields.address),
        },
      } satisfies CustomerUpserted;
    }
    case 'CustomerEventReceived': {
      const v = e.value;
      return {
        ...v,
        event: {
          ...v.event,
          email: str(fields.email),
          phone: str(fields.phone),
          name: str(fields.name),
          address: obj(fields.address),
        },
      } satisfies CustomerEventReceived;
    }
    case 'ZeroPartySubmitted': {
      const v = e.value;
      return {
        ...v,
        email: str(fields.email),
        attributes_json: str(fields.attributes_json),
      } satisfies ZeroPartySubmitted;
    }
  }
}

export type { PersonalData };

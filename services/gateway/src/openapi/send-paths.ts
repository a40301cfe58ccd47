/** POST /v1/sends and its confirm, in /v1/openapi.json (docs/read-api.md, "Send claim and confirm"). */
import { jsonBody, ok, paramRef, responseRef, schemaRef } from './ingest-paths.js';

const CAMPAIGN_TYPE = { type: 'string', enum: ['win_back', 'replenishment', 'vip'] } as const;
const CHANNEL = { type: 'string', enum: ['email', 'sms'] } as const;
const TIME = { type: 'string', format: 'date-time' } as const;
const COUNT = { type: 'integer', minimum: 0 } as const;

export const sendSchemas = {
  SendClaimRequest: {
    type: 'object',
    additionalProperties: false,
    description:
      'A new claim: campaign_type and channel. A further page of a claim: send_id and the cursor of its previous page (campaign_type and channel, if given, must be the claim’s).',
    properties: {
      campaign_type: CAMPAIGN_TYPE,
      channel: CHANNEL,
      send_id: { type: 'string', format: 'uuid' },
      cursor: { type: 'string', description: 'next_cursor of the previous page of this claim.' },
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: 5000,
        default: 1000,
        description: 'Audience members examined in this page.',
      },
    },
  },
  SendClaim: {
    type: 'object',
    additionalProperties: false,
    required: [
      'send_id',
      'campaign_type',
      'channel',
      'claimed_at',
      'expires_at',
      'next_cursor',
      'held_out',
      'left_out',
      'members',
    ],
    properties: {
      send_id: { type: 'string', format: 'uuid' },
      campaign_type: CAMPAIGN_TYPE,
      channel: CHANNEL,
      claimed_at: TIME,
      expires_at: {
        ...TIME,
        description: 'Confirm before this, else the claim lapses and counts for nothing.',
      },
      next_cursor: {
        type: ['string', 'null'],
        description: 'Send it with send_id for the next page; null on the last.',
      },
      held_out: {
        ...COUNT,
        description:
          'Holdout members of this page: never handed out, the lift’s comparison group once confirmed.',
      },
      left_out: {
        type: 'object',
        additionalProperties: false,
        required: ['cooling_down', 'no_consent', 'suppressed', 'capped'],
        description: 'Members of this page not handed out, by reason (the rules of Holdfast’s own sends).',
        properties: { cooling_down: COUNT, no_consent: COUNT, suppressed: COUNT, capped: COUNT },
      },
      members: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['external_id', 'customer_id', 'tracking_id', 'cta_url'],
          properties: {
            external_id: { type: ['string', 'null'] },
            customer_id: { type: 'string', format: 'uuid' },
            tracking_id: { type: 'string', pattern: '^hft_[0-9a-f]{24}$' },
            cta_url: {
              type: 'string',
              format: 'uri',
              description: 'The call to action on the storefront, tagged utm_content=<tracking_id>.',
            },
          },
        },
      },
    },
  },
  SendConfirmRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['sent_at'],
    properties: {
      sent_at: { ...TIME, description: 'When the messages left: at or after the claim, not in the future.' },
    },
  },
  SendConfirmed: {
    type: 'object',
    additionalProperties: false,
    required: [
      'send_id',
      'campaign_type',
      'channel',
      'status',
      'claimed_at',
      'confirmed_at',
      'sent_at',
      'members',
      'held_out',
    ],
    properties: {
      send_id: { type: 'string', format: 'uuid' },
      campaign_type: CAMPAIGN_TYPE,
      channel: CHANNEL,
      status: { type: 'string', const: 'confirmed' },
      claimed_at: TIME,
      confirmed_at: TIME,
      sent_at: TIME,
      members: { ...COUNT, description: 'Messages the claim handed out: now attributable, the treated arm.' },
      held_out: { ...COUNT, description: 'Holdout members recorded for the lift.' },
    },
  },
} as const;

const params = [paramRef('ServiceAccountId'), paramRef('RequestId')];
const conflict = (description: string) => ({
  description,
  content: { 'application/json': { schema: schemaRef('DetailBody') } },
});
const errors = {
  '401': responseRef('Unauthorized'),
  '403': responseRef('ReadKeyForbidden'),
  '404': responseRef('NotFound'),
  '422': responseRef('ValidationFailed'),
  '429': responseRef('TooManyRequests'),
  '500': responseRef('InternalError'),
};

export const sendPaths = {
  '/v1/sends': {
    post: {
      summary: 'Claim an audience page for a send from your own stack',
      description:
        "Reads a page of the audience export of campaign_type (the rule of GET /v1/audiences) and decides each member as Holdfast's own sends are decided, on the claim's channel: 30-day cool-down of the type, Holdfast's consent record, the account's frequency cap, then the universal holdout (never handed out, counted in held_out). Each member handed out gets a fresh tracking id and its call-to-action link on the account's storefront domain. Confirm the claim (POST /v1/sends/{send_id}/confirm) before expires_at (24 h) to make the messages attributable and part of the lift; an unconfirmed claim lapses and adds neither arm. Idempotency-Key is required: a repeat answers the same page. 409 when the account has no storefront domain, or for a further page of an expired or confirmed claim.",
      operationId: 'postSendClaim',
      tags: ['sends'],
      security: [{ ingestKey: [] }],
      parameters: [
        ...params,
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: true,
          schema: { type: 'string', minLength: 1, maxLength: 200 },
          description: 'One key per page: the same key (per account) answers the page first claimed with it.',
        },
      ],
      requestBody: jsonBody('SendClaimRequest'),
      responses: {
        '201': ok(
          'SendClaim',
          'The page of the claim (or the same page again for a repeated Idempotency-Key).',
        ),
        '409': conflict('No storefront domain; or a further page of an expired or confirmed claim.'),
        ...errors,
      },
    },
  },
  '/v1/sends/{send_id}/confirm': {
    post: {
      summary: 'Confirm that a claimed send went out',
      description:
        "Every member handed out by the claim's pages becomes a sent message (attributable exactly by its tracking id, else by 7-day last touch; the treated arm of the lift, intent to treat), and its holdout members the comparison group, at the account's next recompute. Idempotent: a repeat answers the first confirm. Another account's or an unknown send_id: 404. An expired claim: 409.",
      operationId: 'confirmSendClaim',
      tags: ['sends'],
      security: [{ ingestKey: [] }],
      parameters: [
        ...params,
        {
          name: 'send_id',
          in: 'path',
          required: true,
          schema: { type: 'string' },
          description: 'The claim.',
        },
      ],
      requestBody: jsonBody('SendConfirmRequest'),
      responses: {
        '200': ok('SendConfirmed', 'Confirmed (or confirmed before: the same answer).'),
        '409': conflict('The claim expired unconfirmed.'),
        ...errors,
      },
    },
  },
};

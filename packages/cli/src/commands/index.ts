import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { registerAccounts } from './accounts.js';
import { registerAnalysts } from './analysts.js';
import { registerAnalytics } from './analytics.js';
import { registerBackfill } from './backfill.js';
import { registerCampaigns } from './campaigns.js';
import { registerDev } from './dev.js';
import { registerDlq } from './dlq.js';
import { registerKeys } from './keys.js';
import { registerMigrate } from './migrate.js';
import { registerPixel } from './pixel.js';
import { registerPrivacy } from './privacy.js';
import { registerRates } from './rates.js';
import { registerReplay } from './replay.js';
import { registerSecrets } from './secrets.js';
import { registerSync } from './sync.js';
import { registerTiles } from './tiles.js';
import { registerUsers } from './users.js';
import { registerProviders, registerWebhooks } from './webhooks.js';

/** A command module: adds its (sub)commands to the program. */
export type RegisterCommand = (program: Command, context: () => CliContext) => void;

/** Every command, in the order `--help` lists them. Add a module here to add a command. */
export const COMMANDS: RegisterCommand[] = [
  registerAccounts,
  registerKeys,
  registerTiles,
  registerPixel,
  registerWebhooks,
  registerProviders,
  registerSecrets,
  registerCampaigns,
  registerMigrate,
  registerSync,
  registerBackfill,
  registerAnalytics,
  registerAnalysts,
  registerRates,
  registerReplay,
  registerDlq,
  registerPrivacy,
  registerUsers,
  registerDev,
];

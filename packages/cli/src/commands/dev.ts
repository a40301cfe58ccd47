import { DEFAULT_BASE_URL, DEFAULT_PIXEL_ORIGIN, createDevFixture } from '../fixture.js';
import { httpUrl } from '../format.js';
import type { RegisterCommand } from './index.js';

/** `holdfast dev ...`: helpers for local development and black-box tests. */
export const registerDev: RegisterCommand = (program, context) => {
  const dev = program.command('dev').description('development helpers');

  dev
    .command('fixture')
    .description(
      'create fresh test accounts and keys; prints them as one JSON object (--json) or KEY=value lines',
    )
    .option(
      '--base-url <url>',
      `gateway address to report (default: $HOLDFAST_BASE_URL or ${DEFAULT_BASE_URL})`,
      httpUrl,
    )
    .option('--pixel-origin <origin>', 'origin on the pixel allow-list of account A', DEFAULT_PIXEL_ORIGIN)
    .action(async (o: { baseUrl?: string; pixelOrigin: string }) => {
      const ctx = context();
      const baseUrl = o.baseUrl ?? ctx.env.HOLDFAST_BASE_URL ?? DEFAULT_BASE_URL;
      const fixture = await createDevFixture(await ctx.db(), { baseUrl, pixelOrigin: o.pixelOrigin });
      ctx.out(fixture, () =>
        Object.entries(fixture)
          .map(([k, v]) => `${k}=${v}`)
          .join('\n'),
      );
    });
};

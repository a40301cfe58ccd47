// npm run bench -- <name> [--option value ...]
import { benchAnalystRls } from './analyst-rls.js';
import { benchBackfill } from './backfill.js';
import { benchChaos } from './chaos.js';
import { benchClassify } from './classify.js';
import { benchDashboards } from './dashboards.js';
import { benchCluster } from './cluster.js';
import { benchErasure } from './erasure.js';
import { benchFairness } from './fairness.js';
import { benchLift } from './lift.js';
import { benchObservability } from './observability.js';
import { benchFit } from './fit.js';
import { benchFuzz } from './fuzz.js';
import { benchIntervals } from './intervals.js';
import { benchPixel } from './pixel.js';
import { benchProduce } from './produce.js';
import { benchProject } from './project.js';
import { benchReadApi } from './read-api.js';
import { benchRecompute } from './recompute.js';
import { benchReplay } from './replay.js';
import { benchSealFloor } from './seal-floor.js';
import { benchSoak } from './soak.js';
import { benchSummary } from './summary.js';

// A bench may resolve with an exit code (non-zero when a guarantee it checks failed).
type Bench = (args: Record<string, string>) => Promise<void | number>;
const BENCHES: Record<string, Bench> = {
  backfill: benchBackfill,
  classify: benchClassify,
  produce: benchProduce,
  project: benchProject,
  replay: benchReplay,
  pixel: benchPixel,
  recompute: benchRecompute,
  lift: benchLift,
  chaos: benchChaos,
  cluster: benchCluster,
  observability: benchObservability,
  soak: benchSoak,
  summary: benchSummary,
  fuzz: benchFuzz,
  fit: benchFit,
  'analyst-rls': benchAnalystRls,
  erasure: benchErasure,
  fairness: benchFairness,
  'read-api': benchReadApi,
  dashboards: benchDashboards,
  intervals: benchIntervals,
  'seal-floor': benchSealFloor,
};

function parseArgs(argv: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith('--')) {
      const next = argv[i + 1];
      if (next !== undefined && !next.startsWith('--')) {
        out[a.slice(2)] = next;
        i++;
      } else out[a.slice(2)] = 'true';
    }
  }
  return out;
}

const [name, ...rest] = process.argv.slice(2);
const bench = name ? BENCHES[name] : undefined;
if (!bench) {
  console.error(`usage: npm run bench -- <${Object.keys(BENCHES).join('|')}> [options]`);
  process.exit(2);
}
process.exit((await bench(parseArgs(rest))) ?? 0);

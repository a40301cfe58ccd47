// Top self-time functions of a .cpuprofile (node --cpu-prof):
//   node --import tsx bench/profile-top.ts <file.cpuprofile> [count]
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
}
const [file, count = '25'] = process.argv.slice(2);
const prof = JSON.parse(readFileSync(file!, 'utf8')) as { nodes: Node[]; samples: number[] };
const self = new Map<string, number>();
for (const n of prof.nodes) {
  const { functionName, url, lineNumber } = n.callFrame;
  const where = url.replace(/^.*\/(node_modules\/|services\/|packages\/)/, '$1');
  const k = `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`;
  self.set(k, (self.get(k) ?? 0) + n.hitCount);
}
// Shares of the busy time: '(idle)' is waiting (on PostgreSQL, Kafka, the client), not work.
const idle = [...self].filter(([k]) => k.startsWith('(idle)')).reduce((s, [, v]) => s + v, 0);
const total = [...self.values()].reduce((s, v) => s + v, 0) - idle;
console.log(`busy ${((100 * total) / (total + idle)).toFixed(1)} % of ${total + idle} samples`);
self.delete('(idle) :0');
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(count)))
  console.log(`${((100 * v) / total).toFixed(1).padStart(5)} %  ${k}`);

// A seeded sample of the page scripts' lines for StrykerJS, in proportion to each script's lines of code:
//   node tools/stryker/sample.cjs [LINES] [SEED]  ->  "eidomap/data/planner/common.js:12-12,..." (for --mutate)
// Every mutant StrykerJS makes on a drawn line is in the sample (docs/reliability.md, "Page scripts (StrykerJS)").
"use strict";

const fs = require("node:fs");
const path = require("node:path");

const [lines = 80, seed = 44] = process.argv.slice(2).map(Number);
const folder = path.join(__dirname, "..", "..", "eidomap", "data", "planner");
const scripts = fs.readdirSync(folder).filter((f) => f.endsWith(".js")).sort();
// the lines of code: not blank, not a comment, not a lone bracket
const code = scripts.flatMap((f) => fs.readFileSync(path.join(folder, f), "utf8").split("\n")
  .map((text, i) => [f, i + 1, text.trim()])
  .filter(([, , t]) => t && !/^(\/\/|\/\*|\*)/.test(t) && !/^[\]})]+[;,)]*$/.test(t)));
let state = seed >>> 0;  // mulberry32: the same draw on every machine
const random = () => {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const drawn = [];
const pool = code.slice();
for (let k = 0; k < Math.min(lines, pool.length); k++) {  // a simple random sample, without replacement
  const j = k + Math.floor(random() * (pool.length - k));
  [pool[k], pool[j]] = [pool[j], pool[k]];
  drawn.push(pool[k]);
}
drawn.sort((a, b) => a[0].localeCompare(b[0]) || a[1] - b[1]);
process.stdout.write(drawn.map(([f, n]) => `eidomap/data/planner/${f}:${n}-${n}`).join(","));

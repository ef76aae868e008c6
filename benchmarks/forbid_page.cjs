// The planner page's script (eidomap/data/planner/common.js and eido.js) answering forbid routes in Node, timed:
// run by benchmarks/forbid.py as `node forbid_page.cjs PAGE.html QUESTIONS.json`.  The scripts run in Node's own
// global scope, as a browser runs a page's scripts (a vm context makes every global name a slow lookup).  Prints
// one line of JSON: for each route (one warm-up route first, not timed) the least milliseconds of the runs asked and
// its answer, as the first question for the actor and as a later one.
"use strict";

const fs = require("node:fs");
const path = require("node:path");

const [page, questions] = process.argv.slice(2);
const scripts = path.join(__dirname, "..", "eidomap", "data", "planner");
const source = ["common.js", "eido.js"].map((name) => fs.readFileSync(path.join(scripts, name), "utf8")).join("\n");
(0, eval)(`${source}\nglobalThis.EidoPlanner = EidoPlanner;`);
const html = fs.readFileSync(page, "utf8");
const data = JSON.parse(/<script type="application\/json" id="eidomap-data">([\s\S]*?)<\/script>/.exec(html)[1]);
const planner = new globalThis.EidoPlanner.Planner(data);
const asked = JSON.parse(fs.readFileSync(questions, "utf8"));
planner.route(asked.warmup[0], asked.warmup[1], asked.options);
/** The least milliseconds of the runs asked for each pair, and its answers; ``first``: as the first question the
 * page asks for the actor (the pairs within a turn's reach it keeps from the question before dropped). */
function timed(first) {
  const ms = [], answers = [];
  for (const [a, b] of asked.pairs) {
    let least = Infinity, answer;
    for (let run = 0; run < asked.runs; run++) {
      if (first) planner.net.turnPairs = undefined;
      const t0 = performance.now();
      answer = planner.route(a, b, asked.options);
      least = Math.min(least, performance.now() - t0);
    }
    ms.push(least);
    answers.push(answer);
  }
  return { ms, answers };
}
process.stdout.write(JSON.stringify({ first: timed(true), kept: timed(false) }) + "\n");

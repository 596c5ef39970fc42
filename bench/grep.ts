/**
 * bench/grep: the grep tool over a repository of a few thousand real files (packages copied from
 * this checkout's node_modules into a plain folder, since grep skips node_modules). Prints the
 * median wall time per pattern and the longest event-loop stall seen while grep ran — the figure
 * that says whether a search holds up the server's other requests.
 * Run: npx tsx bench/grep.ts [--runs 7]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfinedRoot, grepTool } from '../server/tools/read-tools.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' } } });
const RUNS = Number(values.runs);
const PACKAGES = ['openai', 'zod', 'fastify', 'execa', 'typescript'];
const PATTERNS = ['function\\s+\\w+Error', 'TODO', 'import .* from "zod"', 'x{40}'];

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tilth-bench-grep-'));
try {
  const repo = path.join(home, 'repo');
  for (const name of PACKAGES) {
    fs.cpSync(path.join(import.meta.dirname, '..', 'node_modules', name), path.join(repo, 'pkgs', name), { recursive: true, dereference: true });
  }
  const root = new ConfinedRoot(repo);
  const files = await root.files('**/*');
  console.log(`bench/grep: ${files.length} files, ${RUNS} runs per pattern`);
  await grepTool(root, 'warm-up'); // the first call pays for the disk cache (and any one-time setup)

  for (const pattern of PATTERNS) {
    const times: number[] = [];
    // The longest gap between ticks of a 5 ms interval: how long the event loop was held.
    let last = performance.now();
    let stall = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      stall = Math.max(stall, now - last);
      last = now;
    }, 5);
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      await grepTool(root, pattern);
      times.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 20)); // a tick held up by the last call still counts
    }
    clearInterval(ticker);
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)]!;
    console.log(
      `  /${pattern}/  median ${median.toFixed(0)} ms  (min ${times[0]!.toFixed(0)}, max ${times.at(-1)!.toFixed(0)})  longest event-loop stall ${stall.toFixed(0)} ms`,
    );
  }
} finally {
  fs.rmSync(home, { recursive: true, force: true });
}

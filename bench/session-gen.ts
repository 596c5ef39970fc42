/**
 * Realistic run sessions for the benchmarks, written with the real schemas and the real store.
 * The mix follows the one the Python edition's viewer was measured on (reference/perf-anchor.md,
 * "Generator event mix"), in this edition's event types: per task a context reset, the memory
 * load and the worker's prompt; then iterations of a worker model call followed by 1–3 guarded
 * tool rounds (tool_call → hook_run → tool_result; about 1% blocked); every 6–14 iterations a
 * case: submit_case → validator_run with test output → the evaluator's prompt, call and verdict
 * → ledger line, rejects until the task's share of events is spent, then an accept, task_done,
 * commit and the learnings step. Deterministic for a seed. `summary.json` is the shared fold of
 * exactly these events, as the run writes it.
 *
 * As a command, for scripts that drive the benches:
 *   npx tsx bench/session-gen.ts --sessions-dir DIR --events N [--count K] [--tasks T] [--seed S]
 * writes K finished run sessions of N events each into DIR and prints one JSON line per session,
 * `{"id": …, "events": …, "tasks": …}`.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { EventInput } from '../shared/events.ts';
import type { PrdEntry } from '../shared/files.ts';
import { addToSummary, emptySummary } from '../shared/summary.ts';
import { SessionStore } from '../server/store/session-store.ts';
import { prng } from '../server/testing/prng.ts';

const WORDS =
  'the parser reads each line and keeps a running total so the report can show what changed since the last run without scanning the whole file again when a test fails we print the diff and stop early'.split(
    ' ',
  );
const CODE = [
  'export function parse(line) {',
  '  const [key, value] = line.split("=");',
  '  if (!key) throw new Error(`bad line: ${line}`);',
  '  return { key: key.trim(), value: value?.trim() ?? "" };',
  '}',
  'for (const entry of entries) totals[entry.key] = (totals[entry.key] ?? 0) + 1;',
  'test("parses a line", () => assert.deepEqual(parse("a=1"), { key: "a", value: "1" }));',
  'const report = Object.entries(totals).map(([k, n]) => `${k}: ${n}`).join("\\n");',
];
const TOOLS: [string, number][] = [
  ['read_file', 30],
  ['bash', 28],
  ['edit_file', 18],
  ['grep', 10],
  ['write_file', 8],
  ['glob', 6],
];
const CATEGORIES = ['acceptance_gap', 'weak_test', 'tests_pass_but_wrong', 'half_finished', 'spec_violation', 'scope_creep'] as const;

export interface GeneratedSession {
  id: string;
  events: number;
  tasks: number;
}

export interface RunShape {
  /** Events in the whole log, counting those before the first one generated. */
  total: number;
  tasks: number;
  seed: number;
  /** Seq the first generated event will get (a new log starts with `log_opened` at 1). */
  firstSeq: number;
  worktree: string;
  branch: string;
  /** Carried by every worker and evaluator call as `context_window`, as a provider that tells it would. */
  contextWindow?: number;
}

export interface GeneratedEvent {
  input: EventInput;
  /** Time since the previous event, for a log written with realistic timestamps. */
  advanceMs: number;
}

/** The plan (prd.json) of a generated run: one entry per task, all done. */
export interface RunPlan {
  plan: PrdEntry[];
  costUsd: number;
  tokens: number;
  calls: number;
}

/** The events of a whole run, in order; `out` gets the plan and spend once it is done. */
export function* runEvents(shape: RunShape, out: RunPlan = { plan: [], costUsd: 0, tokens: 0, calls: 0 }): Generator<GeneratedEvent> {
  const rnd = prng(shape.seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  const between = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const prose = (chars: number) => {
    let s = '';
    while (s.length < chars) s += `${pick(WORDS)} `;
    return s.slice(0, chars);
  };
  const code = (chars: number) => {
    let s = '';
    while (s.length < chars) s += `${pick(CODE)}\n`;
    return s.slice(0, chars);
  };
  const hex = (n: number) => Array.from({ length: n }, () => '0123456789abcdef'[Math.floor(rnd() * 16)]).join('');
  const tool = () => {
    let r = rnd() * 100;
    for (const [name, weight] of TOOLS) if ((r -= weight) < 0) return name;
    return 'read_file';
  };
  const total = shape.total;
  let count = shape.firstSeq - 1;
  const pending: GeneratedEvent[] = [];
  const emit = (input: EventInput, advanceMs = between(0, 2000)) => {
    count++;
    pending.push({ input, advanceMs });
  };
  const caps = BENCH_CAPS;
  const plan = out.plan;
  emit({ type: 'status_changed', data: { from: 'prepared', to: 'running' } });
  emit({
    type: 'session_start',
    data: {
      source: '/bench/repo',
      phase: 'run',
      worktree: shape.worktree,
      branch: shape.branch,
      caps,
      models: { worker: 'bench/worker-model', evaluator: 'bench/evaluator-model' },
      sandbox: { available: true, network: false, detail: 'bubblewrap' },
    },
  });
  const closing = 2; // stop + status_changed
  for (let n = 1; n <= shape.tasks; n++) {
    const taskId = `T-${String(n).padStart(3, '0')}`;
    plan.push({ id: taskId, title: `${prose(between(18, 40)).trim()}`, description: prose(120), acceptance_criteria: [prose(50), prose(60)], status: 'done' });
    const trace = hex(32);
    const end = n === shape.tasks ? total - closing : count + Math.floor((total - closing - count) / (shape.tasks - n + 1));
    const span = () => hex(16);
    const base = (iter: number) => ({ task_id: taskId, trace_id: trace, span_id: span(), iter });
    let iter = 0;
    let prompt = between(2500, 4000);
    const modelCall = (role: 'worker' | 'evaluator' | 'self_improve') => {
      const promptTokens = role === 'worker' ? (prompt += between(200, 1400)) : between(3000, 9000);
      const evalTokens = between(60, 900);
      const cost = (promptTokens * 0.3 + evalTokens * 1.2) / 1e6;
      out.costUsd += cost;
      out.tokens += promptTokens + evalTokens;
      out.calls++;
      emit(
        {
          type: 'model_call',
          data: {
            ...base(iter),
            ...(role === 'worker'
              ? { role: 'worker' as const }
              : role === 'evaluator'
                ? { role: 'evaluator' as const, phase: 'evaluator' as const }
                : { phase: 'self_improve' as const }),
            model: role === 'evaluator' ? 'bench/evaluator-model' : 'bench/worker-model',
            prompt_tokens: promptTokens,
            eval_tokens: evalTokens,
            tokens_used_total: out.tokens,
            cost_usd: cost,
            cost_total_usd: out.costUsd,
            cached_tokens: Math.floor(promptTokens * 0.6),
            reasoning_tokens: between(0, 300),
            duration_ms: between(4000, 25000),
            health: 'ok',
            finish_reason: 'tool_calls',
            reasoning_details: [{ type: 'reasoning.text', text: prose(between(240, 360)) }],
            ...(shape.contextWindow !== undefined && role !== 'self_improve' ? { context_window: shape.contextWindow } : {}),
          },
        },
        between(4000, 25000),
      );
    };
    const toolRound = () => {
      const name = tool();
      const args =
        name === 'bash'
          ? { command: `node --test tests/ 2>&1 | tail -${between(5, 40)}` }
          : name === 'edit_file'
            ? { path: `src/${pick(WORDS)}.js`, old_string: code(between(60, 300)), new_string: code(between(60, 500)) }
            : name === 'write_file'
              ? { path: `src/${pick(WORDS)}.js`, content: code(between(60, 800)) }
              : name === 'grep'
                ? { pattern: pick(WORDS), path_glob: 'src/**/*.js' }
                : name === 'glob'
                  ? { pattern: 'src/**/*.js' }
                  : { path: `src/${pick(WORDS)}.js` };
      emit({ type: 'tool_call', data: { ...base(iter), tool: name, args } });
      if (rnd() < 0.01) {
        emit({ type: 'hook_run', data: { ...base(iter), tool: 'bash', hook: 'pre_tool', outcome: 'block', reason: 'git reset --hard is not allowed' } });
        emit({
          type: 'pre_tool_block',
          data: { ...base(iter), tool: 'bash', result_preview: 'Blocked: git reset --hard would throw away work.', result_chars: 48 },
        });
        return;
      }
      emit({ type: 'hook_run', data: { ...base(iter), tool: name, hook: 'pre_tool', outcome: 'allow' } });
      const chars = between(40, 6000);
      emit(
        {
          type: 'tool_result',
          data: { ...base(iter), tool: name, result_preview: code(Math.min(500, chars)), result_chars: chars, duration_ms: between(5, 3000) },
        },
        between(0, 6000),
      );
    };
    const caseCycle = (verdict: 'accept' | 'reject') => {
      iter++;
      modelCall('worker');
      emit({
        type: 'tool_call',
        data: {
          ...base(iter),
          tool: 'submit_case',
          args: {
            summary: prose(160),
            ac_coverage: plan.at(-1)!.acceptance_criteria.map((c) => ({ criterion: c, addressed_by: `src/${pick(WORDS)}.js`, evidence: prose(60) })),
          },
        },
      });
      const passed = verdict === 'accept' || rnd() < 0.6;
      emit({
        type: 'validator_run',
        data: {
          ...base(iter),
          passed,
          results: [
            {
              name: `tests/t${taskId.slice(2)}_feature.test.js`,
              passed,
              exit_code: passed ? 0 : 1,
              duration_ms: between(200, 4000),
              output: `${code(between(200, 1500))}\n# pass ${passed ? 3 : 2}\n# fail ${passed ? 0 : 1}\n`,
            },
          ],
        },
      });
      emit({ type: 'prompt_assembled', data: { ...base(iter), role: 'evaluator', content: code(between(2000, 3000)), chars: 2500, truncated: false } });
      modelCall('evaluator');
      const category = pick(CATEGORIES);
      emit(
        {
          type: 'evaluator_verdict',
          data: {
            ...base(iter),
            schema_version: 1,
            verdict,
            ...(verdict === 'reject' ? { rejection_category: category, next_step: prose(120) } : {}),
            concern: prose(between(80, 240)),
            evidence: [prose(70), prose(90)],
          },
        },
        between(5000, 40000),
      );
      emit({ type: 'ledger_appended', data: { ...base(iter), verdict_summary: `${taskId} ${verdict}${verdict === 'reject' ? ` · ${category}` : ''}` } });
      if (verdict === 'reject') emit({ type: 'tool_result', data: { ...base(iter), tool: 'submit_case', result_preview: prose(200), result_chars: 200 } });
    };

    emit({ type: 'context_reset', data: { task_id: taskId, trace_id: trace, span_id: span() } });
    emit({
      type: 'memory_load',
      data: {
        task_id: taskId,
        trace_id: trace,
        span_id: span(),
        trigger: 'task_start',
        channels: { progress: 12, plan: 900, ledger: 0, notes: 0 },
        user_prompt_chars: prompt * 4,
      },
    });
    emit({ type: 'prompt_assembled', data: { ...base(0), role: 'worker', content: prose(prompt), chars: prompt, truncated: false } });
    // The accept at the end takes 7 (cycle) + 5 (done, commit, learnings) events.
    const ACCEPT_TAIL = 12;
    const REJECT_CYCLE = 8;
    const ROUND = 3;
    let untilCase = between(6, 14);
    yield* pending.splice(0);
    while (count + ACCEPT_TAIL < end) {
      yield* pending.splice(0);
      const room = end - ACCEPT_TAIL - count;
      if (untilCase-- <= 0 && room >= REJECT_CYCLE) {
        caseCycle('reject');
        untilCase = between(6, 14);
        continue;
      }
      if (room < 1 + ROUND) {
        // Fill the last few slots with allowed hook runs, so the session has exactly `total` events.
        emit({ type: 'hook_run', data: { ...base(iter), tool: 'read_file', hook: 'pre_tool', outcome: 'allow' } });
        continue;
      }
      iter++;
      modelCall('worker');
      const rounds = Math.min(rnd() < 0.55 ? 1 : rnd() < 0.67 ? 2 : 3, Math.floor((room - 1) / ROUND));
      for (let r = 0; r < rounds; r++) toolRound();
    }
    caseCycle('accept');
    emit({ type: 'task_done', data: { task_id: taskId, trace_id: trace, span_id: span(), summary: prose(120) } });
    emit({ type: 'commit', data: { task_id: taskId, trace_id: trace, sha: hex(40) } });
    emit({ type: 'prompt_assembled', data: { ...base(iter), role: 'self_improve', content: prose(1500), chars: 1500, truncated: false } });
    modelCall('self_improve');
    emit({ type: 'proposed_learnings', data: { task_id: taskId, trace_id: trace, span_id: span(), emitted: false, reason: 'no_proposal' } });
    yield* pending.splice(0);
  }
  emit({ type: 'stop', data: { reason: 'all_done', phase: 'run' } });
  emit({ type: 'status_changed', data: { from: 'running', to: 'all_done', reason: 'all_done' } });
  yield* pending.splice(0);
}

export const BENCH_CAPS = { max_iterations_per_task: 32, max_wall_clock_minutes: 0, max_tokens: 0, max_dollars: 0, max_evaluator_calls_per_task: 0 };

/** Writes a finished (`all_done`) session of exactly `total` events into `store`, with its summary. */
export function writeRunSession(
  store: SessionStore,
  total: number,
  options: { tasks: number; seed: number; title?: string; contextWindow?: number },
): GeneratedSession {
  const checkpoint = store.create({
    source: '/bench/repo',
    brief: 'bench',
    title: options.title ?? `bench ${total}`,
    baseBranch: 'main',
    baseSha: 'b'.repeat(40),
    status: 'running',
  });
  const id = checkpoint.session_id;
  const log = store.session(id).log();
  const summary = emptySummary(id);
  const out: RunPlan = { plan: [], costUsd: 0, tokens: 0, calls: 0 };
  let clock = Date.UTC(2026, 10, 20, 9, 0, 0);
  // A new log's first append writes `log_opened` at seq 1 first.
  const firstSeq = log.lastSeq === 0 ? 2 : log.lastSeq + 1;
  let count = log.lastSeq;
  const shape: RunShape = {
    total,
    tasks: options.tasks,
    seed: options.seed,
    firstSeq,
    worktree: checkpoint.worktree,
    branch: checkpoint.branch,
    ...(options.contextWindow === undefined ? {} : { contextWindow: options.contextWindow }),
  };
  for (const { input, advanceMs } of runEvents(shape, out)) {
    clock += advanceMs;
    const event = log.append(input, new Date(clock));
    addToSummary(summary, event);
    count = event.seq;
  }

  store.session(id).prd.write(out.plan);
  store.session(id).checkpoint.update(() => ({
    status: 'all_done',
    last_stop: 'all_done',
    caps: BENCH_CAPS,
    models: { worker: 'bench/worker-model', evaluator: 'bench/evaluator-model', prep: 'bench/prep-model' },
    usage: { prompt_tokens: out.tokens, completion_tokens: 0, total_tokens: out.tokens, cost_usd: out.costUsd, calls: out.calls },
  }));
  store.session(id).summary.save(summary);
  return { id, events: count, tasks: options.tasks };
}

function main(): void {
  const { values } = parseArgs({
    options: {
      'sessions-dir': { type: 'string' },
      events: { type: 'string' },
      count: { type: 'string', default: '1' },
      tasks: { type: 'string', default: '6' },
      seed: { type: 'string', default: '1' },
    },
    strict: true,
  });
  const events = Number(values.events);
  const count = Number(values.count);
  const tasks = Number(values.tasks);
  const seed = Number(values.seed);
  if (!values['sessions-dir'] || !Number.isInteger(events) || events < 100 || !Number.isInteger(count) || count < 1 || !Number.isInteger(tasks) || tasks < 1) {
    process.stderr.write('usage: npx tsx bench/session-gen.ts --sessions-dir DIR --events N (>= 100) [--count K] [--tasks T] [--seed S]\n');
    process.exit(2);
  }
  const store = new SessionStore(path.resolve(values['sessions-dir']));
  for (let i = 0; i < count; i++) {
    const session = writeRunSession(store, events, { tasks, seed: seed + i, title: `bench ${events}` });
    process.stdout.write(`${JSON.stringify(session)}\n`);
  }
  store.close();
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) main();

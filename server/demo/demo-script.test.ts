/**
 * The demo's position-keyed script, played against the harness's real prompts, tool schemas and
 * parsers with the files kept in memory: the story as the demo tells it, and the story cut short
 * at every turn (a stop, a kill: the conversation is lost, the files and the ledger are kept) and
 * taken up again in a fresh conversation, which must still reach the end.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import type { Case, LedgerEntry, PrdEntry, Verdict } from '../../shared/files.ts';
import { CHECKS_FAILED_PREFIX } from '../agent/context.ts';
import { uncoveredCriteria } from '../../shared/coverage.ts';
import { formatCoverageGap, formatRejectFeedback } from '../engine/case.ts';
import { evaluatorUserPrompt, parseVerdict, SUBMIT_VERDICT_TOOL } from '../engine/evaluator.ts';
import { buildWorkerPrompt } from '../engine/worker-prompt.ts';
import { workerToolSchemas } from '../tools/worker-tools.ts';
import { interviewTools } from '../tools/interview-tools.ts';
import { EXAMPLES_DIR } from './example-repo.ts';
import type { ChatRequest, ScriptedReplyInput } from '../scripted-model/model-server.ts';
import { demoReply, QUESTIONS, seedTurn, sentenceMiddle } from './demo-script.ts';

const ANSWERS = ['A priority', 'Put the urgent things first.', 'Yes, show it in the listing'];
const GOOD = 'return { ...todo, priority: level };';
const VALIDATION = "if (!['low', 'normal', 'high'].includes(level))";

type Reply = ScriptedReplyInput;
type ToolCall = { id: string; name: string; arguments: Record<string, unknown> };
const callsOf = (reply: Reply): ToolCall[] => (reply.tool_calls ?? []) as ToolCall[];
const request = (messages: unknown[], tools: unknown[]): ChatRequest => ({ model: 'demo', messages, tools });

/** The seed the interview writes for ANSWERS, and a repository and session state in memory. */
class World {
  readonly seed = callsOf(seedTurn(ANSWERS))[0]!.arguments as { prd_entries: Omit<PrdEntry, 'status'>[]; test_files: Record<string, string> };
  readonly prd: PrdEntry[] = this.seed.prd_entries.map((t) => ({ ...t, status: 'pending' }));
  readonly files = new Map<string, string>([
    ['src/todo.js', fs.readFileSync(path.join(EXAMPLES_DIR, 'js-todo', 'src', 'todo.js'), 'utf8')],
    ['src/format.js', fs.readFileSync(path.join(EXAMPLES_DIR, 'js-todo', 'src', 'format.js'), 'utf8')],
    ...Object.entries(this.seed.test_files),
  ]);
  readonly ledger = new Map<string, LedgerEntry[]>();
  /** What the checks and the evaluator said, in order: `fail`, `reject`, `accept`. */
  readonly story: string[] = [];
  workerRequests = 0;

  private tool(call: ToolCall): string {
    const file = String(call.arguments.path ?? '');
    switch (call.name) {
      case 'read_file':
        return this.files.get(file) ?? `ERROR: no file ${file}`;
      case 'write_file':
        this.files.set(file, String(call.arguments.content));
        return `wrote ${String(call.arguments.content).length} chars to ${file}`;
      case 'edit_file': {
        const text = this.files.get(file) ?? '';
        const old = String(call.arguments.old_string);
        if (text.split(old).length !== 2) return `ERROR: old_string not found once in ${file}`;
        this.files.set(file, text.replace(old, String(call.arguments.new_string)));
        return `edited ${file}`;
      }
      case 'bash':
        return 'ok\n[exit 0]';
      default:
        return `ERROR: unknown tool '${call.name}'`;
    }
  }

  private checksPass(task: PrdEntry): boolean {
    const todo = this.files.get('src/todo.js')!.includes(GOOD);
    return task.id === 'T-001' ? todo : todo && this.files.get('src/format.js')!.includes('(priority: ');
  }

  private judge(task: PrdEntry, theCase: Case): Verdict {
    const entries = this.ledger.get(task.id) ?? [];
    const checks = [{ name: 'acceptance', passed: true, exit_code: 0, output: 'ok' }];
    const diff = [...this.files.entries()]
      .map(
        ([file, text]) =>
          `+++ b/${file}\n${text
            .split('\n')
            .map((l) => `+${l}`)
            .join('\n')}`,
      )
      .join('\n');
    const tests = Object.fromEntries(Object.entries(this.seed.test_files).filter(([f]) => f.includes(task.id === 'T-001' ? 't001' : 't002')));
    const prompt = evaluatorUserPrompt({ task, contextFiles: [], ledger: entries, case: theCase, tests, checks, diff });
    const reply = demoReply(
      request(
        [
          { role: 'system', content: 'evaluator' },
          { role: 'user', content: prompt },
        ],
        [SUBMIT_VERDICT_TOOL.schema],
      ),
    );
    const parsed = parseVerdict(callsOf(reply).map((c) => ({ name: c.name, arguments: JSON.stringify(c.arguments) })));
    if (!parsed.ok) throw new Error(`the demo evaluator's reply did not parse: ${parsed.error}`);
    this.ledger.set(task.id, [
      ...entries,
      { ts: new Date().toISOString(), iter: 1, diff_summary: 'src/todo.js (+1 -0)', case: theCase, verdict: parsed.verdict },
    ]);
    this.story.push(parsed.verdict.verdict);
    return parsed.verdict;
  }

  /**
   * One worker conversation on `task`, as the task loop holds it. `cut` ends it at that turn
   * (1-based) the way a stop or a kill would: `lost` drops the reply unapplied (a call in flight);
   * `unjudged` applies its tools but gives no verdict (the checks or the evaluator in flight).
   */
  work(taskId: string, cut?: { turn: number; how: 'lost' | 'unjudged' }): 'done' | 'cut' {
    const task = this.prd.find((t) => t.id === taskId)!;
    const { prompt } = buildWorkerPrompt({
      worktree: '/work/demo',
      task,
      prd: this.prd,
      seedMeta: null,
      progress: '',
      ownLedger: this.ledger.get(task.id) ?? [],
      notes: [],
      context: { loaded: [], files: [] },
    });
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: 'worker' },
      { role: 'user', content: prompt },
    ];
    for (let turn = 1; turn <= 12; turn++) {
      const reply = demoReply(request(messages, workerToolSchemas()));
      this.workerRequests++;
      const calls = callsOf(reply);
      expect(calls.map((c) => c.name)).not.toContain('submit_verdict');
      expect(calls.length).toBeGreaterThan(0);
      if (cut?.turn === turn && cut.how === 'lost') return 'cut';
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })),
      });
      for (const call of calls) {
        if (call.name !== 'submit_case') {
          messages.push({ role: 'tool', tool_call_id: call.id, content: this.tool(call) });
          continue;
        }
        const gap = uncoveredCriteria(task.acceptance_criteria, call.arguments as Case);
        if (gap.length > 0) {
          this.story.push('gap');
          messages.push({ role: 'tool', tool_call_id: call.id, content: formatCoverageGap(gap, task.acceptance_criteria.length) });
          continue;
        }
        if (!this.checksPass(task)) {
          this.story.push('fail');
          messages.push({ role: 'tool', tool_call_id: call.id, content: `${CHECKS_FAILED_PREFIX}\n\n### acceptance: FAILED (exit 1)\nnot ok 1` });
          continue;
        }
        if (cut?.turn === turn) return 'cut';
        const verdict = this.judge(task, call.arguments as Case);
        if (verdict.verdict === 'accept') {
          task.status = 'done';
          return 'done';
        }
        messages.push({ role: 'tool', tool_call_id: call.id, content: formatRejectFeedback(verdict) });
      }
      if (cut?.turn === turn) return 'cut';
    }
    throw new Error(`${taskId} did not finish in 12 turns; files:\n${this.files.get('src/todo.js')}`);
  }
}

describe('sentenceMiddle', () => {
  it("lowercases an answer's first word unless it is a name or an acronym, and drops its full stop", () => {
    expect(sentenceMiddle('Mark a todo as urgent.')).toBe('mark a todo as urgent');
    expect(sentenceMiddle('API clients can sort by it. ')).toBe('API clients can sort by it');
    expect(sentenceMiddle('McDonald-style lists')).toBe('McDonald-style lists');
    expect(sentenceMiddle('I want to sort')).toBe('I want to sort');
    expect(sentenceMiddle('')).toBe('');
  });
});

describe('the demo script', () => {
  it('tells the story: the first case leaves a criterion out, its check fails, the fix is rejected once for a gap, then accepted; T-002 passes first time', () => {
    const world = new World();
    expect(world.work('T-001')).toBe('done');
    expect(world.work('T-002')).toBe('done');
    expect(world.story).toEqual(['gap', 'fail', 'reject', 'accept', 'accept']);
    expect(world.ledger.get('T-001')!.map((e) => e.verdict.rejection_category ?? 'accept')).toEqual(['acceptance_gap', 'accept']);
    expect(world.files.get('src/todo.js')).toContain(VALIDATION);
    expect(world.files.get('src/todo.js')!.match(/export function setPriority/g)).toHaveLength(1);
  });

  it.each(Array.from({ length: 10 }, (_, i) => i + 1))('reaches the end from a fresh conversation whatever turn %i of T-001 was cut at', (turn) => {
    for (const how of ['lost', 'unjudged'] as const) {
      const world = new World();
      world.work('T-001', { turn, how });
      // A second cut in the resumed conversation too, at every turn it could be.
      for (let again = 1; again <= 4; again++) {
        const twice = new World();
        twice.work('T-001', { turn, how });
        twice.work('T-001', { turn: again, how });
        expect(twice.work('T-001')).toBe('done');
        expect(twice.files.get('src/todo.js')).toContain(VALIDATION);
      }
      expect(world.work('T-001')).toBe('done');
      expect(world.work('T-002')).toBe('done');
      const todo = world.files.get('src/todo.js')!;
      expect(todo).toContain(VALIDATION);
      expect(todo.match(/export function setPriority/g)).toHaveLength(1);
      // Never more than one reject: a task the evaluator rejected is not rejected again.
      expect(world.story.filter((s) => s === 'reject').length).toBeLessThanOrEqual(1);
    }
  });

  it('picks the next interview turn from the conversation: a look at the code, the questions not yet answered, then the seed', () => {
    const tools = interviewTools('tests/t<NNN>_<slug>.test.js').map((t) => t.schema);
    const messages: unknown[] = [
      { role: 'system', content: 'interviewer' },
      { role: 'user', content: 'brief' },
    ];
    const asked: string[] = [];
    for (let turn = 0; turn < 10; turn++) {
      const reply = demoReply(request(messages, tools));
      // A repeated call (a restart mid-turn) gets the very same reply.
      expect(demoReply(request(messages, tools))).toEqual(reply);
      const calls = callsOf(reply);
      if (calls[0]?.name === 'write_seed') {
        const seed = calls[0].arguments as { prd_entries: PrdEntry[] };
        expect(seed.prd_entries.map((t) => t.title)).toEqual(['Todos carry a priority', 'The listing shows the priority']);
        // The answer reads as the middle of the sentence: its capital and full stop go.
        expect(seed.prd_entries[0]!.description).toBe('Add setPriority(todo, value) to src/todo.js so a user can put the urgent things first.');
        expect(asked).toEqual(QUESTIONS.map((q) => q.question));
        return;
      }
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })),
      });
      for (const c of calls) {
        if (c.name === 'ask_user') asked.push(String(c.arguments.question));
        messages.push({ role: 'tool', tool_call_id: c.id, content: c.name === 'ask_user' ? ANSWERS[asked.length - 1] : 'file text' });
      }
    }
    throw new Error('the interview never wrote the seed');
  });

  it('answers each role in its own terms: the evaluator a verdict, the learnings step JSON, the worker never a verdict', () => {
    const verdict = demoReply(request([{ role: 'user', content: '# Task to evaluate: T-009 — Something else' }], [SUBMIT_VERDICT_TOOL.schema]));
    expect(callsOf(verdict).map((c) => [c.name, c.arguments.verdict])).toEqual([['submit_verdict', 'accept']]);
    const learning = demoReply(request([{ role: 'user', content: 'Task just completed: T-001 — Todos carry a priority' }], []));
    expect(JSON.parse(String(learning.content)).learning).toMatch(/node --test/);
    expect(JSON.parse(String(demoReply(request([{ role: 'user', content: 'Task just completed: T-002 — x' }], [])).content))).toEqual({ learning: null });
    // A task it has no code for: it says so and presents no case, rather than a case that cannot pass.
    const unknownTask = demoReply(request([{ role: 'user', content: '## Your task\n\n**ID:** T-007\n**Title:** Sync with a calendar' }], workerToolSchemas()));
    expect(callsOf(unknownTask)).toEqual([]);
    expect(unknownTask.content).toContain('The demo model has no code for T-007 ("Sync with a calendar")');
  });
});

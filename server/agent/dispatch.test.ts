/**
 * Agent.dispatch (issue 31 step 5): a tool declared with its run runs itself; the runtime reads,
 * reports, runs, answers and reports each call in order, and hands final tools to the loop.
 * No model is called here, so the agent is given no client.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ModelClient } from '../llm/client.ts';
import type { HistoryMessage } from './history.ts';
import { Agent, type AgentCall } from './runtime.ts';
import { defineTool, ToolError, type ToolAnswer } from './tools.ts';

type Ctx = { prefix: string };
const ECHO = defineTool('echo', 'Echo.', z.object({ text: z.string() }), { run: (args, ctx: Ctx) => ({ output: `${ctx.prefix}${args.text}` }) });
const FAIL = defineTool('fail', 'Fails.', z.object({}), {
  run: () => {
    throw new ToolError('no such thing');
  },
});
const CRASH = defineTool('crash', 'Crashes.', z.object({}), {
  run: () => {
    throw Object.assign(new Error('disk full'), { code: 'ENOSPC' });
  },
});
const DONE = defineTool('done', 'Ends the loop.', z.object({ why: z.string() }));

let n = 0;
const call = (name: string, args: unknown, extra: Partial<AgentCall> = {}): AgentCall => ({
  id: `c${++n}`,
  name,
  rawArgs: typeof args === 'string' ? args : JSON.stringify(args),
  fromText: false,
  isFunction: true,
  ...extra,
});

function agent() {
  const messages: HistoryMessage[] = [];
  const a = new Agent<Ctx>({ llm: {} as ModelClient, role: 'worker', messages, tools: [ECHO, FAIL, CRASH, DONE] });
  return { a, messages };
}

describe('Agent.dispatch', () => {
  it('runs each call in order with the context, answering and reporting it, and hands a final call to the loop', async () => {
    const { a, messages } = agent();
    const log: string[] = [];
    const calls = [call('echo', { text: 'one' }), call('done', { why: 'x' }), call('echo', { text: 'two' })];
    await a.dispatch(
      calls,
      { prefix: '> ' },
      {
        called: (c, args, fit) => log.push(`called ${c.name} ${JSON.stringify(args)} ${fit}`),
        answered: (c, answer: ToolAnswer, ms, fit) => log.push(`answered ${c.name} ${answer.output} ${fit} ${ms >= 0}`),
      },
      (c, index) => {
        log.push(`final ${c.name} at ${index}`);
        return false;
      },
    );
    expect(log).toEqual([
      'called echo {"text":"one"} true',
      'answered echo > one true true',
      'final done at 1',
      'called echo {"text":"two"} true',
      'answered echo > two true true',
    ]);
    expect(messages.map((m) => (m.role === 'tool' ? [m.tool_call_id, m.content] : m.role))).toEqual([
      [calls[0]!.id, '> one'],
      [calls[2]!.id, '> two'],
    ]);
  });

  it('stops at a final call that says so, leaving the rest to the loop', async () => {
    const { a, messages } = agent();
    const ran: string[] = [];
    await a.dispatch([call('done', { why: 'x' }), call('echo', { text: 'late' })], { prefix: '' }, { called: (c) => ran.push(c.name) }, () => true);
    expect(ran).toEqual([]);
    expect(messages).toEqual([]);
  });

  it('answers arguments that do not fit, an unknown tool and a non-function call with what is wrong, reported as sent', async () => {
    const { a, messages } = agent();
    const reported: [string, unknown, boolean][] = [];
    await a.dispatch(
      [call('echo', { text: 3 }), call('echo', '{oops'), call('rm', { all: true }), call('echo', { text: 'x' }, { isFunction: false })],
      { prefix: '' },
      { called: (c, args, fit) => reported.push([c.name, args, fit]) },
      () => false,
    );
    expect(reported).toEqual([
      ['echo', { text: 3 }, false],
      ['echo', '(unparseable JSON)', false],
      ['rm', { all: true }, false],
      ['echo', { text: 'x' }, false],
    ]);
    const answers = messages.map((m) => String(m.content));
    expect(answers[0]).toMatch(/^ERROR: the arguments of echo do not fit its parameters — 'text'/);
    expect(answers[1]).toMatch(/^ERROR: the arguments of echo are not valid JSON/);
    expect(answers[2]).toBe("ERROR: unknown tool 'rm'. Available: echo, fail, crash, done.");
    expect(answers[3]).toBe('ERROR: only function tools are available.');
  });

  it("turns what a run throws into the model's error: a ToolError's words, else the code and the words", async () => {
    const { a, messages } = agent();
    await a.dispatch([call('fail', {}), call('crash', {})], { prefix: '' }, {}, () => false);
    expect(messages.map((m) => m.content)).toEqual(['ERROR: no such thing', 'ERROR: ENOSPC: disk full']);
  });

  it('checks the abort signal before each call', async () => {
    const stop = new AbortController();
    const ran: string[] = [];
    const stopping = defineTool('stop', 'Stops.', z.object({}), {
      run: () => {
        stop.abort();
        return { output: 'stopping' };
      },
    });
    const b = new Agent<Ctx>({ llm: {} as ModelClient, role: 'worker', messages: [], tools: [stopping, ECHO], signal: stop.signal });
    await expect(
      b.dispatch([call('stop', {}), call('echo', { text: 'never' })], { prefix: '' }, { called: (c) => ran.push(c.name) }, () => false),
    ).rejects.toThrow();
    expect(ran).toEqual(['stop']);
  });
});

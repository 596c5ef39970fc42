/**
 * The evaluator's gate fails closed (issue 28): no verdict, a verdict that cannot be read, and a
 * provider outage never count as an accept. Each path runs a real task whose checks and named
 * cases pass, so the evaluator's answer is the only thing between it and a commit.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScriptedReplyInput } from '../scripted-model/model-server.ts';
import { caseTurn, makePreparedSession } from '../testing/run-fixtures.ts';
import { EVAL, git, implTurn, TWO_TASKS, useRunHarness, WORKER } from '../testing/run-harness.ts';

const h = useRunHarness();

const submitVerdict = (args: Record<string, unknown>): ScriptedReplyInput => ({ tool_calls: [{ name: 'submit_verdict', arguments: args }] });
const unmetAccept = submitVerdict({ verdict: 'accept', concern: 'Fine.', evidence: [], criteria: [{ n: 1, met: false, note: 'Not done.' }] });

const PATHS: { name: string; evaluator: ScriptedReplyInput[]; stop: string }[] = [
  { name: 'no verdict at all (two empty replies)', evaluator: [{ fault: 'empty' }, { fault: 'empty' }], stop: 'evaluator_unreadable' },
  {
    name: 'a verdict whose arguments are not JSON, twice',
    evaluator: [
      { fault: 'malformed_tool_args', tool_calls: [{ name: 'submit_verdict', arguments: {} }] },
      { fault: 'malformed_tool_args', tool_calls: [{ name: 'submit_verdict', arguments: {} }] },
    ],
    stop: 'evaluator_unreadable',
  },
  { name: 'an accept that calls a criterion unmet, twice', evaluator: [unmetAccept, unmetAccept], stop: 'evaluator_unreadable' },
  {
    name: 'prose that praises the work instead of a verdict',
    evaluator: [{ content: 'Accept: all good!' }, { content: 'Accept.' }],
    stop: 'evaluator_unreadable',
  },
  { name: 'a provider outage (5xx until the retries run out)', evaluator: [{ fault: 'server_error' }, { fault: 'server_error' }], stop: 'provider_failure' },
  {
    name: 'a provider that ends the reply with finish_reason error',
    evaluator: [{ fault: 'finish_error' }, { fault: 'finish_error' }],
    stop: 'provider_failure',
  },
];

describe('the evaluator gate fails closed', { timeout: 60_000 }, () => {
  it.each(PATHS)('never accepts on $name', async ({ evaluator, stop }) => {
    const id = await makePreparedSession(h.t.store, h.repo.dir, 'node', TWO_TASKS.slice(0, 1));
    h.fake.load({ models: { [WORKER]: [implTurn('double', 'n * 2'), caseTurn()], [EVAL]: evaluator } });
    const d = await h.runToEnd(id);
    expect(d.session.status).toBe('stopped');
    expect(d.session.last_stop).toBe(stop);
    expect(d.tasks[0]!.status).toBe('failed');
    const session = h.t.store.session(id);
    expect(session.ledger.read('T-001').some((e) => e.verdict.verdict === 'accept')).toBe(false);
    expect(session.evidence.read('T-001')).toBeNull();
    expect(fs.existsSync(path.join(h.t.store.session(id).dir, 'evidence'))).toBe(false);
    const wt = h.t.store.session(id).checkpoint.read().worktree;
    expect(git(wt, 'log', '-1', '--format=%s')).toBe(`T-001: FAILED (${stop}): Double`);
    const verdicts = h.t.store
      .session(id)
      .log()
      .readAfter(0, 10_000)
      .filter((e) => e.type === 'evaluator_verdict');
    expect(verdicts.every((e) => e.type === 'evaluator_verdict' && e.data.verdict === 'reject')).toBe(true);
  });
});

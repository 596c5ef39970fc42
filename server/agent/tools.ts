/**
 * A tool is declared once: its name, description and zod arguments, how a call's arguments are
 * read, and what a call does. The JSON schema the model sees is generated from the zod schema,
 * and the arguments a model sends are read with the same schema (`safeParse`), whose message goes
 * back to the model — so what the model is told and what is checked can never drift apart.
 *
 * A tool with `run` runs itself: the agent runtime (`Agent.dispatch`) reads the call, reports it,
 * runs it, reports and answers the result. A tool without `run` is a final tool (`submit_case`,
 * `submit_verdict`, `write_seed`, `ask_user`): it ends what its loop is doing, so the loop takes
 * it and reads it with the declaration's `read`, once.
 */
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import { z } from 'zod';

/** A tool refusal or failure whose message goes back to the model as the tool result. */
export class ToolError extends Error {
  override name = 'ToolError';
}

/** What a call gives back: the answer for the model, and the pre-tool guard's reason when it vetoed the call. */
export type ToolAnswer = { output: string; blocked?: string };

export interface ToolSpec<A = unknown, C = unknown> {
  readonly name: string;
  readonly description: string;
  /** What the arguments are checked against: the declared schema, or a looser one (see defineTool). */
  readonly args: z.ZodType<A>;
  /** The schema the model sees, generated once. */
  readonly schema: ChatCompletionFunctionTool;
  /** A call's arguments as sent (a JSON string), read as the tool's type, or the message for the model. */
  read(raw: string): ArgsCheck<A>;
  /** Runs a call whose arguments were read; absent for a final tool, which its loop takes. */
  run?(args: A, ctx: C): Promise<ToolAnswer> | ToolAnswer;
}

export interface ToolOptions<A, C> {
  /**
   * Replaces the declared schema for checking when a tool's own validation says more than a
   * schema error could (write_seed: the sink lists every problem in the interviewer's terms).
   */
  checkWith?: z.ZodType<A>;
  /** Replaces the reading of a call's arguments altogether, with the tool's own messages (submit_case, submit_verdict). */
  read?: (raw: string) => ArgsCheck<A>;
  run?: (args: A, ctx: C) => Promise<ToolAnswer> | ToolAnswer;
}

export function defineTool<S extends z.ZodType, A = z.infer<S>, C = unknown>(
  name: string,
  description: string,
  args: S,
  options: ToolOptions<A, C> = {},
): ToolSpec<A, C> {
  const generated = z.toJSONSchema(args, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  const { $schema: _drop, ...parameters } = generated;
  const check = (options.checkWith ?? args) as unknown as z.ZodType<A>;
  const spec: ToolSpec<A, C> = {
    name,
    description,
    args: check,
    schema: { type: 'function', function: { name, description, parameters } },
    read: options.read ?? ((raw) => checkArgs(spec, raw)),
    ...(options.run ? { run: options.run } : {}),
  };
  return spec;
}

/**
 * A tool's run, with what it throws as the model's error message: a ToolError's words, else the
 * error's code (or name) and words.
 */
export async function runToolCall<A, C>(tool: ToolSpec<A, C>, args: A, ctx: C): Promise<ToolAnswer> {
  try {
    return await tool.run!(args, ctx);
  } catch (err) {
    if (err instanceof ToolError) return { output: `ERROR: ${err.message}` };
    const e = err as NodeJS.ErrnoException;
    return { output: `ERROR: ${e.code ?? e.name ?? 'Error'}: ${e.message ?? String(err)}` };
  }
}

/** Arguments for the event log: the parsed object, or a note when they were not JSON. */
export function shownArgs(raw: string): unknown {
  try {
    return raw.trim() === '' ? {} : (JSON.parse(raw) as unknown);
  } catch {
    return '(unparseable JSON)';
  }
}

export type ArgsCheck<A> = { ok: true; args: A } | { ok: false; message: string };

/**
 * The arguments of a call as the tool's type, or the message for the model: not JSON, not an
 * object, or not fitting the schema (every problem at once, with its path). Empty arguments
 * count as `{}`, which many small models send for a tool without parameters.
 */
export function checkArgs<A>(tool: Pick<ToolSpec<A>, 'name' | 'args'>, raw: string): ArgsCheck<A> {
  let value: unknown = {};
  if (raw.trim() !== '') {
    try {
      value = JSON.parse(raw);
    } catch (err) {
      return {
        ok: false,
        message: `ERROR: the arguments of ${tool.name} are not valid JSON (${(err as Error).message}). Send one JSON object with the named parameters.`,
      };
    }
  }
  if (value === null) value = {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    return {
      ok: false,
      message: `ERROR: the arguments of ${tool.name} must be a JSON object with the named parameters; got ${Array.isArray(value) ? 'a list' : typeof value}.`,
    };
  }
  const parsed = tool.args.safeParse(value);
  if (parsed.success) return { ok: true, args: parsed.data };
  const problems = parsed.error.issues.map((i) => (i.path.length > 0 ? `'${i.path.join('.')}': ${i.message}` : i.message));
  return {
    ok: false,
    message: `ERROR: the arguments of ${tool.name} do not fit its parameters — ${problems.join('; ')}. Call it again with arguments that fit.`,
  };
}

/** Does a JSON value fit the tool's arguments (used to read a bare JSON object as a call)? */
export function argsFit(tools: readonly ToolSpec[], name: string, args: unknown): boolean {
  const tool = tools.find((t) => t.name === name);
  return tool?.args.safeParse(args).success === true;
}

/**
 * A tool is declared once: name, description and zod arguments. The JSON schema the model sees is
 * generated from the zod schema, and the arguments a model sends are checked with the same schema
 * (`safeParse`), whose message goes back to the model — so what the model is told and what is
 * checked can never drift apart. Implementations stay with their owners (worker tools, the
 * interview's ask_user and write_seed, the evaluator's verdict); this file only knows the shape.
 */
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import { z } from 'zod';

export type ToolSpec<A = unknown> = {
  readonly name: string;
  readonly description: string;
  /** What the arguments are checked against: the declared schema, or a looser one (see defineTool). */
  readonly args: z.ZodType<A>;
  /** The schema the model sees, generated once. */
  readonly schema: ChatCompletionFunctionTool;
};

/**
 * `checkWith` replaces the declared schema for checking when a tool's own validation says more
 * than a schema error could (write_seed: the sink lists every problem in the interviewer's terms).
 */
export function defineTool<S extends z.ZodType, C extends z.ZodType = S>(name: string, description: string, args: S, checkWith?: C): ToolSpec<z.infer<C>> {
  const generated = z.toJSONSchema(args, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  const { $schema: _drop, ...parameters } = generated;
  const check = (checkWith ?? args) as unknown as z.ZodType<z.infer<C>>;
  return { name, description, args: check, schema: { type: 'function', function: { name, description, parameters } } };
}

export type ArgsCheck<A> = { ok: true; args: A } | { ok: false; message: string };

/**
 * The arguments of a call as the tool's type, or the message for the model: not JSON, not an
 * object, or not fitting the schema (every problem at once, with its path). Empty arguments
 * count as `{}`, which many small models send for a tool without parameters.
 */
export function checkArgs<A>(tool: ToolSpec<A>, raw: string): ArgsCheck<A> {
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

/**
 * Tool calls a model wrote as text instead of sending them as structured calls: common with
 * Ollama, LM Studio, vLLM started without a tool parser, and some hosted Llama and Qwen models,
 * whose chat template prints the call and leaves it to a parser that is not there.
 *
 * Read only when a turn has no structured call, and only for tools the turn offered, so a reply
 * that merely quotes JSON (a case, a learning) is never mistaken for a call. Shapes read:
 * - a JSON object `{"name": …, "arguments"|"parameters": {…}}`, alone or in a ```json fence, or
 *   a list of them;
 * - `<tool_call>{…}</tool_call>` (Hermes and Qwen templates), any number of them;
 * - `[TOOL_CALLS][{…}]` or `[TOOL_CALLS]name{…}` (Mistral templates);
 * - `<function=name>{…}</function>` (Llama 3.1) and `<function=name><parameter=key>value
 *   </parameter></function>` (Qwen3-Coder);
 * - with exactly one tool offered, a bare JSON object that is that tool's arguments (an
 *   evaluator writing its verdict as text).
 */
export type TextToolCall = { name: string; arguments: string };

export function parseTextToolCalls(text: string, offered: readonly string[], argsFit?: (name: string, args: unknown) => boolean): TextToolCall[] {
  if (offered.length === 0 || text.trim() === '') return [];
  const names = new Set(offered);
  const found: TextToolCall[] = [];
  const take = (value: unknown) => {
    for (const call of asCalls(value)) if (names.has(call.name)) found.push(call);
  };

  for (const m of text.matchAll(/<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g)) take(parseJson(m[1]!));
  if (found.length > 0) return found;

  for (const m of text.matchAll(/<function=([\w.-]+)>([\s\S]*?)<\/function>/g)) {
    const name = m[1]!;
    const body = m[2]!.trim();
    if (!names.has(name)) continue;
    const json = parseJson(body);
    if (isRecord(json)) {
      found.push({ name, arguments: JSON.stringify(json) });
      continue;
    }
    // Values are text; a list or an object is written as JSON (the Qwen3-Coder parser converts
    // by the tool's schema; lists and objects are the cases a string never fits).
    const params: Record<string, unknown> = {};
    for (const p of body.matchAll(/<parameter=([\w.-]+)>\n?([\s\S]*?)\n?<\/parameter>/g)) params[p[1]!] = parseJson(p[2]!) ?? p[2]!;
    found.push({ name, arguments: JSON.stringify(params) });
  }
  if (found.length > 0) return found;

  const mistral = /\[TOOL_CALLS\]\s*([\s\S]*)$/.exec(text);
  if (mistral) {
    const rest = mistral[1]!.trim();
    const json = parseJson(rest);
    if (json !== undefined) take(json);
    else {
      const named = /^([\w.-]+)\s*(\{[\s\S]*\})\s*$/.exec(rest);
      if (named && names.has(named[1]!) && isRecord(parseJson(named[2]!))) found.push({ name: named[1]!, arguments: named[2]! });
    }
    if (found.length > 0) return found;
  }

  const fenced = [...text.matchAll(/```(?:json)?\s*\n([\s\S]*?)```/g)].map((m) => m[1]!);
  for (const candidate of [...fenced, text.trim()]) {
    const json = parseJson(candidate);
    if (json === undefined) continue;
    take(json);
    if (found.length > 0) return found;
    if (offered.length === 1 && isRecord(json) && argsFit?.(offered[0]!, json)) return [{ name: offered[0]!, arguments: JSON.stringify(json) }];
  }
  return found;
}

function asCalls(value: unknown): TextToolCall[] {
  const list = Array.isArray(value) ? value : [value];
  const out: TextToolCall[] = [];
  for (const item of list) {
    if (!isRecord(item)) continue;
    const fn = isRecord(item.function) ? item.function : item;
    const name = typeof fn.name === 'string' ? fn.name : typeof item.tool === 'string' ? item.tool : null;
    if (!name) continue;
    const args = fn.arguments ?? fn.parameters ?? item.args ?? {};
    if (typeof args === 'string') {
      out.push({ name, arguments: args });
      continue;
    }
    if (!isRecord(args)) continue;
    out.push({ name, arguments: JSON.stringify(args) });
  }
  return out;
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return undefined;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

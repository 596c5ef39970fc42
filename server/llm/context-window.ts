/**
 * A model's context window: configured, or asked of the provider where its API tells it.
 *
 * Where each provider says it (each confirmed in its documentation or maintainers' threads):
 * - OpenRouter: `GET /api/v1/models` → `data[].context_length`.
 * - vLLM (and SGLang, which copied the field): `GET /v1/models` → `data[].max_model_len`.
 * - llama.cpp's llama-server: `GET /props` at the server root → `default_generation_settings.n_ctx`,
 *   the context each request gets; in router mode a bare `/props` answers a placeholder 0, and
 *   `/props?model=…` the model's own. `GET /v1/models` → `data[].meta.n_ctx` (allocated) and
 *   `n_ctx_train` (what the model was trained with) are the fallback.
 * - LM Studio: `GET /api/v0/models` → `loaded_context_length` of a loaded model, else
 *   `max_context_length` (the model's maximum, not what it will be loaded with).
 * - Ollama: the OpenAI endpoint cannot ask for a context size, so a request gets the Modelfile's
 *   `num_ctx` (`POST /api/show` → `parameters`), else the server's default: what `GET /api/ps`
 *   shows for the loaded model (OLLAMA_CONTEXT_LENGTH or Ollama's own default), else 4096, the
 *   default of most versions. `model_info["<arch>.context_length"]` is only the model's maximum.
 * - Everyone else (OpenAI, DeepSeek, Mistral, Groq, Gemini, Azure…) publishes nothing usable
 *   through the OpenAI-compatible API: unknown, and the user sets it.
 *
 * Discovery never throws: any failure is an `unknown` with a note. Requests go only to the
 * endpoint's own host (its /models, or the server root for the local servers' native APIs), the
 * key only in their Authorization header, and redirects are refused rather than followed, so
 * the key cannot be carried elsewhere.
 */
import type { ContextWindowSource } from '../../shared/api.ts';
import { presetForUrl } from '../../shared/providers.ts';
import { AnswerTooLargeError, metadataMaxBytes, readBounded, requestLabel } from './bounded-answer.ts';
import type { RoleEndpoint } from './types.ts';

export type { ContextWindowSource } from '../../shared/api.ts';

export type ContextWindow = {
  /** Tokens; null when unknown. */
  tokens: number | null;
  source: ContextWindowSource;
  /** What the figure means or why there is none, for the user. */
  note?: string;
  /** The figure is a default Tilth assumes (Ollama's), not one the server reported. */
  assumed?: true;
};

export type DiscoverOptions = {
  signal?: AbortSignal;
  /** For the whole discovery, every request included (default DISCOVERY_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Injected by tests; the global fetch otherwise. */
  fetch?: typeof fetch;
};

export const DISCOVERY_TIMEOUT_MS = 5_000;
/** Ollama's default context on most versions (newer ones size it by free VRAM). */
export const OLLAMA_DEFAULT_CONTEXT = 4_096;

const unknown = (note: string): ContextWindow => ({ tokens: null, source: 'unknown', note });

/** The configured window when there is one, else what the provider tells. Never throws. */
export async function resolveContextWindow(
  configured: number | null,
  endpoint: RoleEndpoint | undefined,
  options: DiscoverOptions = {},
): Promise<ContextWindow> {
  if (configured !== null) return { tokens: configured, source: 'config' };
  if (endpoint === undefined) return unknown('This role has no provider configured.');
  return discoverContextWindow(endpoint, options);
}

/** Asks the endpoint's provider for its model's context window. Never throws. */
export async function discoverContextWindow(endpoint: RoleEndpoint, options: DiscoverOptions = {}): Promise<ContextWindow> {
  let base: URL;
  try {
    base = new URL(endpoint.baseUrl);
  } catch {
    return unknown(`The base URL "${endpoint.baseUrl}" is not a URL.`);
  }
  const timeoutMs = options.timeoutMs ?? DISCOVERY_TIMEOUT_MS;
  const timer = AbortSignal.timeout(timeoutMs);
  // Ends the requests still under way once the discovery has its answer or has given up.
  const done = new AbortController();
  const signal = AbortSignal.any([timer, done.signal, ...(options.signal ? [options.signal] : [])]);
  const http = new Http(base, endpoint.apiKey, signal, options.fetch ?? fetch);
  try {
    return await discover(endpoint, base, http);
  } catch (err) {
    if (options.signal?.aborted) return unknown('The discovery was cancelled.');
    if (timer.aborted) return unknown(`The provider did not tell its context window within ${timeoutMs} ms.`);
    if (err instanceof AnswerTooLargeError) return unknown(err.message);
    return unknown(`The provider could not be asked: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    done.abort();
  }
}

async function discover(endpoint: RoleEndpoint, base: URL, http: Http): Promise<ContextWindow> {
  const model = endpoint.model;
  const preset = presetForUrl(endpoint.baseUrl);
  const list = await http.getJson(joinPath(base, 'models'));
  const entries = listEntries(list);

  if (preset?.id === 'openrouter') {
    if (entries === null) return unknown("OpenRouter's model list could not be read.");
    const entry = findModel(entries, model) ?? findModel(entries, model.replace(/:[a-z]+$/, ''));
    const tokens = positiveInt(entry?.context_length);
    if (tokens !== null) return { tokens, source: 'openrouter' };
    return unknown(entry ? `OpenRouter lists "${model}" without a context length.` : `"${model}" is not in OpenRouter's model list.`);
  }

  const entry = entries === null ? undefined : (findModel(entries, model) ?? (entries.length === 1 ? entries[0] : undefined));
  const vllm = positiveInt(entry?.max_model_len);
  if (vllm !== null) return { tokens: vllm, source: 'vllm' };

  if (preset !== null && !preset.local) {
    return unknown(`${preset.name} does not publish context windows through its API; set it in Settings.`);
  }

  // The local servers' native APIs live at the server root, beside /v1.
  const root = serverRoot(base);
  const [llamacpp, lmstudio, ollama] = await Promise.all([
    fromLlamaCpp(http, root, model, entry),
    fromLmStudio(http, root, model),
    fromOllama(http, root, model),
  ]);
  return llamacpp ?? lmstudio ?? ollama ?? unknown('The provider does not tell its context window; set it in Settings.');
}

async function fromLlamaCpp(http: Http, root: URL, model: string, entry: Entry | undefined): Promise<ContextWindow | null> {
  const meta = isObject(entry?.meta) ? entry.meta : undefined;
  const props = await http.getJson(joinPath(root, 'props'));
  let nCtx = positiveInt(isObject(props) && isObject(props.default_generation_settings) ? props.default_generation_settings.n_ctx : undefined);
  if (nCtx === null && isObject(props) && 'default_generation_settings' in props) {
    // Router mode: the bare /props is a placeholder; ask for the model, without loading it.
    const url = joinPath(root, 'props');
    url.searchParams.set('model', model);
    url.searchParams.set('autoload', 'false');
    const own = await http.getJson(url);
    nCtx = positiveInt(isObject(own) && isObject(own.default_generation_settings) ? own.default_generation_settings.n_ctx : undefined);
  }
  if (nCtx !== null) return { tokens: nCtx, source: 'llamacpp' };
  const allocated = positiveInt(meta?.n_ctx);
  if (allocated !== null) return { tokens: allocated, source: 'llamacpp' };
  const trained = positiveInt(meta?.n_ctx_train);
  if (trained !== null) {
    return { tokens: trained, source: 'llamacpp', note: "The model's training context; llama-server may run it with less (its -c option)." };
  }
  return null;
}

async function fromLmStudio(http: Http, root: URL, model: string): Promise<ContextWindow | null> {
  const entries = listEntries(await http.getJson(joinPath(root, 'api/v0/models')));
  const entry = entries === null ? undefined : findModel(entries, model);
  if (entry === undefined) return null;
  const loaded = positiveInt(entry.loaded_context_length);
  if (loaded !== null) return { tokens: loaded, source: 'lmstudio' };
  const max = positiveInt(entry.max_context_length);
  if (max === null) return null;
  return {
    tokens: max,
    source: 'lmstudio',
    note: `"${model}" is not loaded: this is the model's maximum. LM Studio loads it with the context length in its load settings, which may be far less.`,
  };
}

async function fromOllama(http: Http, root: URL, model: string): Promise<ContextWindow | null> {
  const show = await http.postJson(joinPath(root, 'api/show'), { model });
  if (!isObject(show) || !('parameters' in show || 'model_info' in show || 'modelfile' in show)) return null;
  const maximum = modelMaximum(show.model_info);
  const ofModel = maximum === null ? '' : ` The model supports up to ${maximum}.`;
  const numCtx = typeof show.parameters === 'string' ? /^\s*num_ctx\s+(\d+)\s*$/m.exec(show.parameters)?.[1] : undefined;
  const fromModelfile = positiveInt(numCtx === undefined ? undefined : Number(numCtx));
  if (fromModelfile !== null) return { tokens: fromModelfile, source: 'ollama', note: `From the model's Modelfile (num_ctx).${ofModel}` };

  const ps = await http.getJson(joinPath(root, 'api/ps'));
  const running = isObject(ps) && Array.isArray(ps.models) ? ps.models.filter(isObject) : [];
  const wanted = withTag(model);
  const loaded = running.find(
    (m) => (typeof m.model === 'string' && withTag(m.model) === wanted) || (typeof m.name === 'string' && withTag(m.name) === wanted),
  );
  const loadedCtx = positiveInt(loaded?.context_length);
  if (loadedCtx !== null) {
    return {
      tokens: loadedCtx,
      source: 'ollama',
      note: `As the model is loaded now: the server's default context (OLLAMA_CONTEXT_LENGTH, or Ollama's own).${ofModel}`,
    };
  }
  return {
    tokens: OLLAMA_DEFAULT_CONTEXT,
    source: 'ollama',
    assumed: true,
    note: `Assumed: Ollama's OpenAI endpoint uses the server's default context, ${OLLAMA_DEFAULT_CONTEXT} tokens on most versions (\`ollama ps\` shows the real one once the model is loaded), and silently cuts longer prompts.${ofModel} Raise it with OLLAMA_CONTEXT_LENGTH=32768 on the server, or PARAMETER num_ctx 32768 in a Modelfile.`,
  };
}

/** `model_info["<arch>.context_length"]`: the model's maximum, not what a request gets. */
function modelMaximum(info: unknown): number | null {
  if (!isObject(info)) return null;
  for (const [key, value] of Object.entries(info)) if (key.endsWith('.context_length')) return positiveInt(value);
  return null;
}

/** Ollama names without a tag mean `:latest`. */
function withTag(name: string): string {
  return name.includes(':') ? name : `${name}:latest`;
}

type Entry = Record<string, unknown>;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function listEntries(body: unknown): Entry[] | null {
  return isObject(body) && Array.isArray(body.data) ? body.data.filter(isObject) : null;
}

function findModel(entries: Entry[], model: string): Entry | undefined {
  return entries.find((e) => e.id === model);
}

function positiveInt(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : null;
}

/** `base` with `segment` appended to its path; the query (Azure-style keys) is kept. */
function joinPath(base: URL, segment: string): URL {
  const url = new URL(base.href);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${segment}`;
  return url;
}

/** The server root of an OpenAI-compatible base URL: its path without the trailing /v1, no query. */
function serverRoot(base: URL): URL {
  const url = new URL(base.origin);
  url.pathname = base.pathname.replace(/\/+$/, '').replace(/\/v1$/, '') || '/';
  return url;
}

/**
 * JSON requests to the endpoint's host only. Any failure (network, status, not JSON) is null:
 * each provider's probe just finds nothing. An abort or an answer past its bound propagates,
 * ending the discovery: a provider that floods one request is not asked the others.
 */
class Http {
  constructor(
    private readonly base: URL,
    private readonly apiKey: string,
    private readonly signal: AbortSignal,
    private readonly fetchImpl: typeof fetch,
  ) {}

  getJson(url: URL): Promise<unknown> {
    return this.#request(url, { method: 'GET' });
  }

  postJson(url: URL, body: unknown): Promise<unknown> {
    return this.#request(url, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  }

  async #request(url: URL, init: { method: string; body?: string; headers?: Record<string, string> }): Promise<unknown> {
    if (url.host !== this.base.host || url.protocol !== this.base.protocol) return null; // never the key anywhere else
    const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
    if (this.apiKey !== '') headers.authorization = `Bearer ${this.apiKey}`;
    let response: Response;
    try {
      response = await this.fetchImpl(url, { ...init, headers, signal: this.signal, redirect: 'error' });
    } catch (err) {
      if (this.signal.aborted) throw err;
      return null;
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      return null;
    }
    let text: string;
    try {
      text = await readBounded(response, { limit: metadataMaxBytes(url), request: requestLabel(init.method, url), signal: this.signal });
    } catch (err) {
      if (this.signal.aborted || err instanceof AnswerTooLargeError) throw err;
      return null;
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return null;
    }
  }
}

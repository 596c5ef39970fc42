/**
 * The provider presets: the base URL of each OpenAI-compatible provider Tilth is known to work
 * with, and what each one needs so that a coding agent's run does not fail halfway (tool
 * support, context size, server flags). Pure data, read by the settings page, the server's
 * context-window discovery and the README.
 *
 * Sources, for the facts below: each provider's own API documentation (OpenAI, OpenRouter,
 * DeepSeek's "Thinking Mode" guide, Moonshot's API overview, Mistral, Groq, Google's "OpenAI
 * compatibility" page for Gemini, Microsoft's "Azure OpenAI v1 API" lifecycle page), Ollama's
 * context-length docs, LM Studio's REST API docs, vLLM's tool-calling docs and llama.cpp's
 * server README.
 */

export const PROVIDER_IDS = [
  'openai',
  'openrouter',
  'deepseek',
  'kimi',
  'mistral',
  'groq',
  'gemini',
  'azure',
  'ollama',
  'lmstudio',
  'vllm',
  'llamacpp',
] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

export interface ProviderPreset {
  id: ProviderId;
  name: string;
  /** Filled into the base URL field. Azure's holds a placeholder to replace. */
  baseUrl: string;
  /** Runs on this machine; it ignores the key, but the field needs one: type "none". */
  local: boolean;
  /** The part of `baseUrl` the user must replace, when there is one. */
  placeholder?: string;
  /** Does Tilth learn the model's context window from this provider's API? */
  contextWindow: 'discovered' | 'set-it';
  /** What to know or do for Tilth's runs to work, one sentence each. */
  requirements: readonly string[];
  /** A model name to show as an example in the model field. */
  exampleModel?: string;
}

const SET_IT = "It does not publish context windows through its API: set each role's below so Tilth can drop old tool output before the limit.";
const NO_COST = 'It reports no cost per call: set the prices below for TILTH_MAX_DOLLARS to count anything.';

export const PROVIDER_PRESETS: readonly ProviderPreset[] = [
  {
    id: 'openai',
    name: 'OpenAI',
    baseUrl: 'https://api.openai.com/v1',
    local: false,
    contextWindow: 'set-it',
    requirements: [NO_COST, SET_IT],
    exampleModel: 'gpt-4.1',
  },
  {
    id: 'openrouter',
    name: 'OpenRouter',
    baseUrl: 'https://openrouter.ai/api/v1',
    local: false,
    contextWindow: 'discovered',
    requirements: [
      'It reports the cost of each call, so TILTH_MAX_DOLLARS works without prices.',
      'Pick a model served with tool calling (the models page filters by "tools"); the context window is read from its model list.',
    ],
    exampleModel: 'qwen/qwen3-coder',
  },
  {
    id: 'deepseek',
    name: 'DeepSeek',
    baseUrl: 'https://api.deepseek.com',
    local: false,
    contextWindow: 'set-it',
    requirements: [
      'Thinking mode is on by default. DeepSeek refuses a conversation whose tool-calling turns lack their reasoning; Tilth echoes it back automatically.',
      NO_COST,
      SET_IT,
    ],
    exampleModel: 'deepseek-chat',
  },
  {
    id: 'kimi',
    name: 'Kimi (Moonshot)',
    baseUrl: 'https://api.moonshot.ai/v1',
    local: false,
    contextWindow: 'set-it',
    requirements: [
      'In mainland China use https://api.moonshot.cn/v1 with a key from that platform.',
      "Kimi's thinking models return their reasoning with each tool call; Tilth sends it back as they require.",
      NO_COST,
      SET_IT,
    ],
    exampleModel: 'kimi-k2-0905-preview',
  },
  {
    id: 'mistral',
    name: 'Mistral',
    baseUrl: 'https://api.mistral.ai/v1',
    local: false,
    contextWindow: 'set-it',
    requirements: ['Use a model with function calling (Devstral, Mistral Medium or Large, Magistral).', NO_COST, SET_IT],
    exampleModel: 'devstral-medium-latest',
  },
  {
    id: 'groq',
    name: 'Groq',
    baseUrl: 'https://api.groq.com/openai/v1',
    local: false,
    contextWindow: 'set-it',
    requirements: [
      'Groq sometimes rejects a malformed tool call with 400 tool_use_failed; Tilth retries those.',
      'Free-tier rate limits are low: expect waits after 429 answers.',
      NO_COST,
      SET_IT,
    ],
    exampleModel: 'moonshotai/kimi-k2-instruct-0905',
  },
  {
    id: 'gemini',
    name: 'Gemini (OpenAI endpoint)',
    baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai/',
    local: false,
    contextWindow: 'set-it',
    requirements: [
      "Use a key from Google AI Studio. This is Gemini's OpenAI-compatible endpoint; keep the trailing path as it is.",
      'Thinking models attach thought signatures to tool calls that must come back unchanged; Tilth keeps them.',
      NO_COST,
      SET_IT,
    ],
    exampleModel: 'gemini-2.5-pro',
  },
  {
    id: 'azure',
    name: 'Azure OpenAI',
    baseUrl: 'https://YOUR-RESOURCE.openai.azure.com/openai/v1',
    local: false,
    placeholder: 'YOUR-RESOURCE',
    contextWindow: 'set-it',
    requirements: [
      "Replace YOUR-RESOURCE with your Azure OpenAI resource's name, and give your deployment's name as the model.",
      "This is Azure's v1 API, which takes no api-version. A deployment URL ending in ?api-version=… does not work as a base URL here: use the /openai/v1 form.",
      NO_COST,
      SET_IT,
    ],
    exampleModel: 'your-deployment-name',
  },
  {
    id: 'ollama',
    name: 'Ollama',
    baseUrl: 'http://localhost:11434/v1',
    local: true,
    contextWindow: 'discovered',
    requirements: [
      "Raise the context: Ollama's OpenAI endpoint runs with the server's default (often 4096 tokens) and silently cuts longer prompts. Start the server with OLLAMA_CONTEXT_LENGTH=32768, or add PARAMETER num_ctx 32768 to the model's Modelfile.",
      'Pick a model with tool support (ollama.com lists them under "tools").',
      'The key is ignored: type none.',
    ],
    exampleModel: 'qwen3:8b',
  },
  {
    id: 'lmstudio',
    name: 'LM Studio',
    baseUrl: 'http://localhost:1234/v1',
    local: true,
    contextWindow: 'discovered',
    requirements: [
      'Load a model with tool use (marked with a hammer), and give it a context length of 32k or more in its load settings.',
      'Start the server in the Developer tab (or lms server start). The key is ignored: type none.',
    ],
    exampleModel: 'qwen/qwen3-coder-30b',
  },
  {
    id: 'vllm',
    name: 'vLLM',
    baseUrl: 'http://localhost:8000/v1',
    local: true,
    contextWindow: 'discovered',
    requirements: [
      'Start vllm serve with --enable-auto-tool-choice --tool-call-parser <name> (the parser that fits the model, e.g. hermes for Qwen, llama3_json for Llama 3, mistral for Mistral); without them every tool call fails.',
      '--max-model-len sets the context window; Tilth reads it from the server. The key is whatever --api-key says, else any value.',
    ],
    exampleModel: 'Qwen/Qwen3-Coder-30B-A3B-Instruct',
  },
  {
    id: 'llamacpp',
    name: 'llama.cpp server',
    baseUrl: 'http://localhost:8080/v1',
    local: true,
    contextWindow: 'discovered',
    requirements: [
      'Start llama-server with --jinja: tool calls need the chat template, and without it they fail.',
      'Give it a context of 32k or more (-c 32768); Tilth reads it from the server. The key is whatever --api-key says, else any value.',
    ],
  },
];

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * The preset a base URL belongs to, by host for the hosted providers (any path) and by exact URL
 * for the local servers, whose ports are only defaults. Null when it matches none.
 */
export function presetForUrl(url: string): ProviderPreset | null {
  const trimmed = url.trim().replace(/\/+$/, '');
  if (trimmed === '') return null;
  for (const preset of PROVIDER_PRESETS) {
    if (preset.local && trimmed === preset.baseUrl.replace(/\/+$/, '')) return preset;
  }
  const host = hostOf(trimmed);
  if (host === null) return null;
  for (const preset of PROVIDER_PRESETS) {
    if (preset.local) continue;
    const presetHost = hostOf(preset.baseUrl)!;
    if (preset.id === 'azure' ? host.endsWith('.openai.azure.com') : host === presetHost || host.endsWith(`.${presetHost}`)) return preset;
  }
  return null;
}

/**
 * The OpenAI SDK, loaded by the first model call rather than at launch (issue 32): it is the
 * largest module the server has and nothing before a model call needs it.
 */
type Sdk = typeof import('openai');

let loaded: Sdk | null = null;
let loading: Promise<Sdk> | null = null;

export function loadSdk(): Promise<Sdk> {
  loading ??= import('openai').then((sdk) => {
    loaded = sdk;
    return sdk;
  });
  return loading;
}

/** The SDK once a call has loaded it; null before, when no error can be one of its. */
export function loadedSdk(): Sdk | null {
  return loaded;
}

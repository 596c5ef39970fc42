import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROVIDER_IDS, PROVIDER_PRESETS, presetForUrl } from './providers.ts';

describe('the provider presets', () => {
  it('has one preset per id, each with an http(s) base URL and something to say', () => {
    expect(PROVIDER_PRESETS.map((p) => p.id)).toEqual([...PROVIDER_IDS]);
    for (const preset of PROVIDER_PRESETS) {
      expect(new URL(preset.baseUrl).protocol).toMatch(/^https?:$/);
      expect(preset.requirements.length).toBeGreaterThan(0);
      expect(preset.local).toBe(new URL(preset.baseUrl).hostname === 'localhost');
    }
  });

  it("carries each provider's known requirements", () => {
    const says = (id: string) => PROVIDER_PRESETS.find((p) => p.id === id)!.requirements.join(' ');
    expect(says('ollama')).toMatch(/OLLAMA_CONTEXT_LENGTH=32768/);
    expect(says('ollama')).toMatch(/num_ctx/);
    expect(says('ollama')).toMatch(/tool support/);
    expect(says('vllm')).toMatch(/--enable-auto-tool-choice --tool-call-parser/);
    expect(says('llamacpp')).toMatch(/--jinja/);
    expect(says('deepseek')).toMatch(/Thinking mode is on by default/);
    expect(says('lmstudio')).toMatch(/tool use/);
    expect(says('azure')).toMatch(/api-version/);
    expect(PROVIDER_PRESETS.find((p) => p.id === 'gemini')!.baseUrl).toBe('https://generativelanguage.googleapis.com/v1beta/openai/');
  });
});

describe("the README's provider table", () => {
  it('lists every preset by name and base URL', () => {
    const readme = fs.readFileSync(path.join(import.meta.dirname, '..', 'README.md'), 'utf8');
    for (const preset of PROVIDER_PRESETS) expect(readme).toContain(`| ${preset.name} | \`${preset.baseUrl}\` |`);
  });
});

describe('presetForUrl', () => {
  it('recognises a hosted provider by its host, whatever the path', () => {
    expect(presetForUrl('https://openrouter.ai/api/v1')?.id).toBe('openrouter');
    expect(presetForUrl('https://api.deepseek.com/v1')?.id).toBe('deepseek');
    expect(presetForUrl('https://generativelanguage.googleapis.com/v1beta/openai')?.id).toBe('gemini');
    expect(presetForUrl('https://my-team.openai.azure.com/openai/v1')?.id).toBe('azure');
    expect(presetForUrl('https://api.groq.com/openai/v1/')?.id).toBe('groq');
  });

  it('recognises a local server only at its default URL, since any server may sit on localhost', () => {
    expect(presetForUrl('http://localhost:11434/v1')?.id).toBe('ollama');
    expect(presetForUrl('http://localhost:11434/v1/')?.id).toBe('ollama');
    expect(presetForUrl('http://localhost:9999/v1')).toBeNull();
    expect(presetForUrl('http://127.0.0.1:8000/v1')).toBeNull();
  });

  it('matches nothing for an unknown host, a blank or a malformed URL', () => {
    expect(presetForUrl('https://llm.example.com/v1')).toBeNull();
    expect(presetForUrl('https://notopenrouter.ai/api/v1')).toBeNull();
    expect(presetForUrl('')).toBeNull();
    expect(presetForUrl('not a url')).toBeNull();
  });
});

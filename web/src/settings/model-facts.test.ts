import { describe, expect, it } from 'vitest';
import type { ConfigEntry, RoleView } from '../../../shared/api.ts';
import { describeWindow, pricePlaceholder, windowPlaceholder } from './model-facts.ts';

const entry = (key: string, value: string | null): ConfigEntry => ({
  key,
  value,
  source: value === null ? 'default' : 'file',
  secret: false,
  description: '',
  editable: true,
  file_value: value,
  overridden: false,
});
const view = (over: Partial<RoleView> = {}): RoleView => ({
  configured: true,
  base_url: 'http://x/v1',
  model: 'm',
  key_set: true,
  context_window: null,
  price: null,
  ...over,
});
const reported = (tokens: number | null, source: 'vllm' | 'ollama' | 'unknown' = 'vllm', note: string | null = null, configured: number | null = null) => ({
  configured,
  discovered: { tokens, source, note },
});

describe('windowPlaceholder', () => {
  it("shows the role's own value, else the worker's it borrows, else what the provider reports, else asks for it", () => {
    expect(windowPlaceholder('worker', entry('TILTH_WORKER_CONTEXT_WINDOW', '8192'), view(), undefined)).toBe('8192');
    expect(windowPlaceholder('evaluator', entry('TILTH_EVALUATOR_CONTEXT_WINDOW', null), view({ context_window: 32_768 }), reported(65_536))).toBe(
      "32768 (the worker's)",
    );
    expect(windowPlaceholder('evaluator', entry('TILTH_EVALUATOR_CONTEXT_WINDOW', null), view(), reported(65_536))).toBe('65536 (from vLLM)');
    expect(windowPlaceholder('worker', entry('TILTH_WORKER_CONTEXT_WINDOW', null), view(), reported(null, 'unknown'))).toBe('Unknown — type it');
    expect(windowPlaceholder('worker', undefined, view(), undefined)).toBe('Unknown — type it');
  });
});

describe('pricePlaceholder', () => {
  it("shows the role's own price, else the worker's it borrows, else says it is not set", () => {
    const price = { input_per_million: 0.27, output_per_million: 1.1 };
    expect(pricePlaceholder('worker', 'in', entry('TILTH_WORKER_PRICE_IN', '3'), view())).toBe('3');
    expect(pricePlaceholder('prep', 'in', entry('TILTH_PREP_PRICE_IN', null), view({ price }))).toBe("0.27 (the worker's)");
    expect(pricePlaceholder('prep', 'out', entry('TILTH_PREP_PRICE_OUT', null), view({ price }))).toBe("1.1 (the worker's)");
    expect(pricePlaceholder('worker', 'out', entry('TILTH_WORKER_PRICE_OUT', null), view())).toBe('Not set');
  });
});

describe('describeWindow', () => {
  it('names the window in effect and where it comes from', () => {
    expect(describeWindow(reported(65_536))).toEqual({ tone: 'ok', inEffect: 'In effect: 65,536 tokens, from vLLM.', provider: null });
    expect(describeWindow(reported(65_536, 'vllm', null, 32_000))).toEqual({
      tone: 'ok',
      inEffect: 'In effect: 32,000 tokens, as set here.',
      provider: 'vLLM reports 65,536 tokens.',
    });
  });

  it('warns when the configured window is larger than what the provider serves', () => {
    const report = describeWindow(reported(4_096, 'ollama', "Assumed: Ollama's default.", 131_072));
    expect(report.tone).toBe('warning');
    expect(report.inEffect).toMatch(/131,072 tokens, as set here — more than the 4,096 Ollama reports/);
    expect(report.provider).toBe("Assumed: Ollama's default.");
    expect(describeWindow(reported(65_536, 'vllm', null, 131_072)).provider).toBeNull();
  });

  it('says an unknown window is unknown, with the reason the provider gave', () => {
    const report = describeWindow(reported(null, 'unknown', 'DeepSeek does not publish context windows through its API; set it in Settings.'));
    expect(report.tone).toBe('unknown');
    expect(report.inEffect).toMatch(/^Unknown: set it/);
    expect(report.provider).toMatch(/DeepSeek does not publish/);
  });
});

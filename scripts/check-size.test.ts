import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script without types
import { measure, overBudget, problems } from './check-size.mjs';

const lines = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');

describe('check-size', () => {
  it('measures named functions from their first line to their last, nested ones by their path', () => {
    const text = `export function outer() {\n${lines(3)}\n  const inner = () => {\n${lines(2)}\n  };\n  [1].map(() => {\n${lines(4)}\n  });\n}\nclass A {\n  run() {\n    return 1;\n  }\n}\n`;
    const m = measure('x.ts', text);
    expect(m.functions).toEqual([
      { name: 'outer', lines: 15 },
      { name: 'outer.inner', lines: 4 },
      { name: 'A.run', lines: 3 },
    ]);
    expect(m.lines).toBe(text.split('\n').length - 1);
  });

  it('finds what is over the budget: a file over 400 lines and a function over 120', () => {
    const files: Record<string, string> = {
      'long.ts': `export function f() {\n${lines(119)}\n}\n${'// x\n'.repeat(300)}`,
      'short.ts': `export const g = () => {\n${lines(118)}\n};\n`,
    };
    const over = overBudget(Object.keys(files), (f: string) => files[f]!);
    expect(over).toEqual({ files: { 'long.ts': 421 }, functions: { 'long.ts#f': 121 } });
  });

  it('refuses what is over and unlisted, listed without a reason, or listed and back within the budget', () => {
    const over = { files: { 'a.ts': 500 }, functions: { 'a.ts#f': 130, 'b.ts#g': 125 } };
    const listed = { files: { 'a.ts': 'a table', 'gone.ts': 'was long' }, functions: { 'a.ts#f': 'TODO: say why' } };
    const found: string[] = problems(over, listed);
    expect(found).toHaveLength(3);
    expect(found[0]).toMatch(/^gone\.ts is listed .* within the budget now/);
    expect(found[1]).toMatch(/^a\.ts#f is listed .* without a reason/);
    expect(found[2]).toMatch(/^b\.ts#g has 125 lines, over the budget of 120 lines: split it, or list it/);
    expect(problems(over, { files: { 'a.ts': 'r' }, functions: { 'a.ts#f': 'r', 'b.ts#g': 'r' } })).toEqual([]);
  });

  it('the tree is within its budget: every file and function over it is listed with a reason, and nothing else', async () => {
    const fs = await import('node:fs');
    const listed = JSON.parse(fs.readFileSync(new URL('./size-exceptions.json', import.meta.url), 'utf8'));
    expect(problems(overBudget(), listed)).toEqual([]);
  });
});

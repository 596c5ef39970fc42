/**
 * Prompts are product code kept as Markdown in `prompts/`, with named slots written `{{name}}`.
 * Filling checks both ways: a slot the template uses but the caller did not give, and a value
 * the caller gave that the template never uses, are both errors — so a renamed slot cannot
 * silently drop context from what a model sees.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../config/package-root.ts';

export const PROMPTS_DIR = path.join(PACKAGE_ROOT, 'prompts');

const SLOT = /\{\{\s*([a-z][a-z0-9_]*)\s*\}\}/g;

export class PromptError extends Error {
  override name = 'PromptError';
}

export function slotsOf(template: string): Set<string> {
  return new Set([...template.matchAll(SLOT)].map((m) => m[1]!));
}

export function fillPrompt(template: string, values: Record<string, string>, name = 'prompt'): string {
  const used = slotsOf(template);
  const missing = [...used].filter((s) => !(s in values));
  const unknown = Object.keys(values).filter((k) => !used.has(k));
  if (missing.length > 0 || unknown.length > 0) {
    const parts = [];
    if (missing.length > 0) parts.push(`missing slot(s) ${missing.join(', ')}`);
    if (unknown.length > 0) parts.push(`unknown slot(s) ${unknown.join(', ')}`);
    throw new PromptError(`${name}: ${parts.join('; ')}`);
  }
  // One pass, so a value containing "{{x}}" is inserted literally and never re-expanded.
  return template.replace(SLOT, (_m, slot: string) => values[slot]!);
}

/** Loads `prompts/<name>.md` and fills its slots. */
export function loadPrompt(name: string, values: Record<string, string>, dir = PROMPTS_DIR): string {
  if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new PromptError(`bad prompt name "${name}"`);
  const file = path.join(dir, `${name}.md`);
  let template: string;
  try {
    template = fs.readFileSync(file, 'utf8');
  } catch {
    throw new PromptError(`no prompt file ${file}`);
  }
  return fillPrompt(template, values, `prompts/${name}.md`);
}

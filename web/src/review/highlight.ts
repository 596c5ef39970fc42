/**
 * Syntax colours and word-level edit marks for diff hunks, through react-diff-view's `tokenize`.
 *
 * refractor 4 is ESM and lets us register only the grammars we ship (the chunk stays small), but
 * its `highlight` returns a hast root where react-diff-view (written against refractor 3) expects
 * the root's children; the adapter below is that one difference. Tokens become React elements
 * with class names — no HTML strings, nothing evaluated — so the strict CSP holds.
 */
import { markEdits, tokenize, type HunkData, type HunkTokens } from 'react-diff-view';
import bash from 'refractor/lang/bash.js';
import c from 'refractor/lang/c.js';
import cpp from 'refractor/lang/cpp.js';
import css from 'refractor/lang/css.js';
import go from 'refractor/lang/go.js';
import java from 'refractor/lang/java.js';
import javascript from 'refractor/lang/javascript.js';
import json from 'refractor/lang/json.js';
import jsx from 'refractor/lang/jsx.js';
import markdown from 'refractor/lang/markdown.js';
import markup from 'refractor/lang/markup.js';
import python from 'refractor/lang/python.js';
import ruby from 'refractor/lang/ruby.js';
import rust from 'refractor/lang/rust.js';
import sql from 'refractor/lang/sql.js';
import toml from 'refractor/lang/toml.js';
import tsx from 'refractor/lang/tsx.js';
import typescript from 'refractor/lang/typescript.js';
import yaml from 'refractor/lang/yaml.js';
import { refractor } from 'refractor/lib/core.js';

for (const syntax of [bash, c, cpp, css, go, java, javascript, json, jsx, markdown, markup, python, ruby, rust, sql, toml, tsx, typescript, yaml]) {
  refractor.register(syntax);
}

/** refractor 4 with the refractor 3 `highlight` shape react-diff-view calls. */
const refractor3 = {
  highlight: (code: string, language: string) => refractor.highlight(code, language).children,
};

/** Past this many changed lines a file is shown without colours: tokenizing it would stall the page. */
export const HIGHLIGHT_MAX_LINES = 5_000;

/**
 * Tokens for a file's hunks: highlighted when the language is known, with changed words marked
 * within changed lines. Null (plain text) when it cannot be done.
 */
export function tokenizeHunks(hunks: HunkData[], language: string | null): HunkTokens | null {
  const lines = hunks.reduce((n, h) => n + h.changes.length, 0);
  if (lines === 0) return null;
  const enhancers = [markEdits(hunks, { type: 'block' })];
  try {
    if (language !== null && lines <= HIGHLIGHT_MAX_LINES && refractor.registered(language)) {
      return tokenize(hunks, { highlight: true, refractor: refractor3, language, enhancers });
    }
    return tokenize(hunks, { enhancers });
  } catch {
    // A grammar that trips on odd input costs the colours, never the diff.
    return null;
  }
}

/**
 * JUnit XML as the runners write it, read with one parser: the element tree of `<testsuites>` (or
 * a lone `<testsuite>`), suites nesting suites and cases, each case's `failure`/`error`/`skipped`.
 */
import { XMLParser } from 'fast-xml-parser';
import type { CaseOutcome } from './report-shape.ts';

const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  // Element text and attributes as written: a message of digits stays a string.
  parseTagValue: false,
  parseAttributeValue: false,
  textNodeName: '#text',
  isArray: (name) => name === 'testsuite' || name === 'testcase' || name === 'failure' || name === 'error' || name === 'skipped',
  processEntities: true,
  // Numeric character references too: bun writes each newline of a failure as `&#10;`.
  htmlEntities: true,
});

export interface XmlCase {
  name?: string;
  classname?: string;
  file?: string;
  failure?: XmlProblem[];
  error?: XmlProblem[];
  skipped?: XmlProblem[];
}
export type XmlProblem = string | { message?: string; '#text'?: string };
export interface XmlSuite {
  name?: string;
  file?: string;
  testcase?: XmlCase[];
  testsuite?: XmlSuite[];
}

function problemText(p: XmlProblem | undefined): string {
  if (p === undefined) return '';
  if (typeof p === 'string') return p.trim();
  return [p.message, p['#text']?.trim()].filter(Boolean).join('\n');
}

/**
 * The report's root as a suite: `<testsuites>`; with `lone`, also a `<testsuite>` alone (the
 * original JUnit shape, which some reporters still write), as the one suite of an unnamed root.
 */
export function xmlRoot(raw: string, lone = false): XmlSuite {
  const doc = xml.parse(raw) as { testsuites?: XmlSuite | ''; testsuite?: (XmlSuite | '')[] };
  if (doc.testsuites !== undefined) return doc.testsuites === '' ? {} : doc.testsuites;
  if (lone && doc.testsuite !== undefined) return { testsuite: doc.testsuite.map((s) => (s === '' ? {} : s)) };
  throw new Error(lone ? 'no <testsuites> or <testsuite> element' : 'no <testsuites> element');
}

export function outcomeOf(c: XmlCase): { outcome: CaseOutcome; message: string } {
  const bad = c.failure?.[0] ?? c.error?.[0];
  if (bad !== undefined) return { outcome: 'failed', message: problemText(bad) };
  if (c.skipped !== undefined) return { outcome: 'skipped', message: problemText(c.skipped[0]) };
  return { outcome: 'passed', message: '' };
}

export function allSuites(root: XmlSuite): XmlSuite[] {
  return [root, ...(root.testsuite ?? []).flatMap(allSuites)];
}

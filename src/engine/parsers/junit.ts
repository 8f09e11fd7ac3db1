import { createRequire } from 'node:module';
import type { XMLParser as Parser, XMLValidator as Validator } from 'fast-xml-parser';
import type { TestOutcome } from '../types.js';
import { isRecord } from './json-object.js';
import type { TestReport } from './types.js';

const LISTS = new Set(['testsuites', 'testsuite', 'testcase', 'failure', 'error', 'skipped']);

let loaded: { xml: Parser; validator: typeof Validator } | undefined;

/**
 * fast-xml-parser's parser and validator, loaded on first use (synchronously, its CommonJS
 * build): the console imports the parsers' module for its metric names, and its first frame
 * does not wait for the XML parser's modules.
 */
function xmlParser(): { xml: Parser; validator: typeof Validator } {
  if (loaded) return loaded;
  const { XMLParser, XMLValidator } = createRequire(import.meta.url)('fast-xml-parser') as typeof import('fast-xml-parser');
  const xml = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    parseAttributeValue: false,
    parseTagValue: false,
    htmlEntities: true,
    isArray: (tagName) => LISTS.has(tagName),
  });
  loaded = { xml, validator: XMLValidator };
  return loaded;
}

/**
 * Parses a JUnit XML report, as written by `node --test --test-reporter=junit`, pytest
 * (`--junitxml`), vitest, jest-junit, gradle, surefire and most other runners.
 *
 * Counts the `<testcase>` elements found under `<testsuites>` / `<testsuite>` at any
 * depth (the suites' own `tests=` / `failures=` attributes are not read). A test case
 * fails when it has a `<failure>` or `<error>` child, and is left out of the counts and
 * of `tests` (named in `skipped`) when it has a `<skipped>` child, which is how xfail and
 * todo tests appear.
 * `total` is `passing + failing`. Names are `classname > name`, or `name` when there is
 * no classname. The XML may be surrounded by other text: the report is read from the
 * first `<testsuites` / `<testsuite` tag to the last matching closing tag (several root
 * suites in a row are read together). Returns `null` when there is no such element or
 * the XML is not well-formed. Never throws.
 */
export function parseJunit(output: string): TestReport | null {
  const report = extractReport(output);
  if (report === null) return null;
  // One synthetic root, so that several root suites written one after another still parse.
  const text = `<junit-reports>${report}</junit-reports>`;
  const { xml, validator } = xmlParser();
  if (validator.validate(text) !== true) return null;
  let document: unknown;
  try {
    document = xml.parse(text);
  } catch {
    return null;
  }
  const tests: TestOutcome[] = [];
  const skipped: string[] = [];
  collect(document, tests, skipped);
  const passing = tests.filter((t) => t.ok).length;
  const failing = tests.length - passing;
  return { passing, failing, total: tests.length, tests, ...(skipped.length > 0 ? { skipped } : {}) };
}

/** The text from the first root element to its last closing tag, or `null`. */
function extractReport(output: string): string | null {
  const open = /<(testsuites|testsuite)(?=[\s/>])/.exec(output);
  if (!open) return null;
  const tag = open[1]!;
  const close = output.lastIndexOf(`</${tag}>`);
  if (close !== -1 && close > open.index) return output.slice(open.index, close + tag.length + 3);
  const selfClosed = /^<[^>]*\/>/.exec(output.slice(open.index));
  return selfClosed ? selfClosed[0] : null;
}

/**
 * Walks the suites, pushing one outcome per test case that ran and the name of each
 * skipped one (an element's own cases before its nested suites).
 */
function collect(node: unknown, tests: TestOutcome[], skipped: string[]): void {
  if (!isRecord(node)) return;
  for (const testCase of list(node.testcase)) {
    if (!isRecord(testCase)) continue;
    if ('skipped' in testCase) skipped.push(caseName(testCase));
    else {
      const classname = typeof testCase['@_classname'] === 'string' ? testCase['@_classname'] : '';
      if (isCollectionError(testCase)) {
        // What it stands for: the module (no classname) or the class in it that pytest could not
        // collect; for a folder whose conftest.py failed, everything under it (a trailing dot).
        const name = typeof testCase['@_name'] === 'string' ? testCase['@_name'] : '';
        const folder = classname === '' && name !== '' && errorText(testCase).includes(`${name.replaceAll('.', '/')}/conftest.py:`);
        tests.push({ name: caseName(testCase), ok: false, load_error: true, in: classname === '' ? (folder ? `${name}.` : name) : `${classname}.${name}` });
      } else tests.push({ name: caseName(testCase), ok: !('failure' in testCase) && !('error' in testCase), ...(classname === '' ? {} : { in: classname }) });
    }
  }
  for (const key of ['testsuite', 'testsuites', 'junit-reports']) {
    for (const child of list(node[key])) collect(child, tests, skipped);
  }
}

/**
 * pytest's entry for a test module or class it could not collect (an import error, a bad
 * parametrize): an `error` whose message is `collection failure`, named by the module's
 * dotted path (no classname) or by the class (its module the classname).
 */
function isCollectionError(testCase: Record<string, unknown>): boolean {
  const error = firstError(testCase);
  return isRecord(error) && error['@_message'] === 'collection failure';
}

/** The text of a test case's first `error` element. */
function errorText(testCase: Record<string, unknown>): string {
  const error = firstError(testCase);
  if (typeof error === 'string') return error;
  return isRecord(error) && typeof error['#text'] === 'string' ? error['#text'] : '';
}

const firstError = (testCase: Record<string, unknown>): unknown => list(testCase.error)[0];

function list(value: unknown): unknown[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** `classname > name`, or `name` when there is no classname. */
function caseName(testCase: Record<string, unknown>): string {
  const name = typeof testCase['@_name'] === 'string' ? testCase['@_name'] : '';
  const classname = typeof testCase['@_classname'] === 'string' ? testCase['@_classname'] : '';
  return classname === '' ? name : `${classname} > ${name}`;
}

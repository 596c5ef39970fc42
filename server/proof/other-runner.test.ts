/** A seed's test written for another runner than the project's (contract-check.ts), read from its source alone. */
import { describe, expect, it } from 'vitest';
import { otherRunnerImport } from './contract-check.ts';

describe('otherRunnerImport', () => {
  it("names the runner a JavaScript test imports when it is not the preset's, however it imports it", () => {
    expect(otherRunnerImport('vitest', "import { test } from 'node:test';\ntest('x', () => {});\n")).toEqual({ module: 'node:test', runner: 'node --test' });
    expect(otherRunnerImport('jest', "const { test } = require('node:test');\n")).toEqual({ module: 'node:test', runner: 'node --test' });
    expect(otherRunnerImport('node', "import { describe, it, expect } from 'vitest'\n")).toEqual({ module: 'vitest', runner: 'Vitest' });
    expect(otherRunnerImport('mocha', "import test from 'ava';\n")).toEqual({ module: 'ava', runner: 'AVA' });
    expect(otherRunnerImport('vitest', "import {expect} from '@jest/globals';")).toEqual({ module: '@jest/globals', runner: 'Jest' });
    expect(otherRunnerImport('node', "await import('bun:test');")).toEqual({ module: 'bun:test', runner: 'Bun' });
    expect(otherRunnerImport('jest', "import 'uvu';\nrequire( 'tap' );")).toEqual({ module: 'uvu', runner: 'uvu' });
  });

  it("passes a test that imports its own runner, ordinary modules, or a runner's name only in a comment; and Python and custom checks", () => {
    expect(otherRunnerImport('vitest', "import { describe, expect, it } from 'vitest';\nimport { add } from '../src/add';\n")).toBeNull();
    expect(otherRunnerImport('node', "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\n")).toBeNull();
    expect(otherRunnerImport('jest', "import { expect } from '@jest/globals';\n")).toBeNull();
    expect(otherRunnerImport('mocha', "const { describe } = require('mocha');\n")).toBeNull();
    expect(otherRunnerImport('vitest', "// once: import { test } from 'node:test';\n/* require('ava') */\nimport { it } from 'vitest';\n")).toBeNull();
    expect(otherRunnerImport('vitest', "import { testing } from './node:test-helpers';\nconst vitest = 'node:test';\n")).toBeNull();
    expect(otherRunnerImport('pytest', 'from vitest import x\n')).toBeNull();
    expect(otherRunnerImport('custom', "import { test } from 'node:test';\n")).toBeNull();
  });
});

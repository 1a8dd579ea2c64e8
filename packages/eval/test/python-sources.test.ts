import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as sources from '../src/code/python-sources';

const pythonDir = new URL('../python/', import.meta.url);

describe('src/code/python-sources.ts', () => {
  it('holds the text of every python/*.py as it is (rerun scripts/inline-python.mjs after editing one)', () => {
    const expected = Object.fromEntries(
      readdirSync(pythonDir)
        .filter((file) => file.endsWith('.py'))
        .map((file) => [
          `${file.slice(0, -3).toUpperCase()}_PY`,
          readFileSync(new URL(file, pythonDir), 'utf8'),
        ]),
    );
    expect({ ...sources }).toEqual(expected);
  });
});

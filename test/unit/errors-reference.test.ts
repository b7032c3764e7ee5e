import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERRORS } from '../../src/protocol/error-catalogue.js';
import { ERRORS_REFERENCE_PATH, renderErrorsReference } from '../../scripts/docs/errors.js';

describe('docs/reference/errors.md', () => {
  it('is what the catalogue renders (run `npm run docs:errors` after changing an error)', () => {
    expect(readFileSync(ERRORS_REFERENCE_PATH, 'utf8')).toBe(renderErrorsReference());
  });

  it('lists every entry of the catalogue with its code', () => {
    const page = renderErrorsReference();
    const missing = Object.entries(ERRORS).filter(([name, { code }]) => !new RegExp(`\\| (\\*\\*)?${name}\\b[^|]*\\| ${code} \\|`).test(page));
    expect(missing.map(([name]) => name)).toEqual([]);
  });
});

// docs/reference/errors.md is checked for freshness with the other generated pages
// (docs-generated.test.ts); here: that the page leaves no entry of the catalogue out.
import { describe, expect, it } from 'vitest';
import { ERRORS } from '../../src/protocol/error-catalogue.js';
import { renderErrorsReference } from '../../scripts/docs/errors.js';

describe('the errors reference', () => {
  it('lists every entry of the catalogue with its code', () => {
    const page = renderErrorsReference();
    const missing = Object.entries(ERRORS).filter(([name, { code }]) => !new RegExp(`\\| (\\*\\*)?${name}\\b[^|]*\\| ${code} \\|`).test(page));
    expect(missing.map(([name]) => name)).toEqual([]);
  });
});

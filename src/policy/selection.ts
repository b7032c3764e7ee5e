// An endpoint's selection (config `endpoints.*.include` / `exclude`): the same `{server}/{name}`
// globs as policy rules (glob.ts), without conditions: an item is selected when an include pattern
// matches it and no exclude pattern does. Pure, compiled once.
import type { ItemFilter } from '../gateway/catalogue/filter-view.js';
import { compilePattern } from './glob.js';

export function compileSelection({ include, exclude }: { readonly include: readonly string[]; readonly exclude: readonly string[] }): ItemFilter {
  const included = include.map(compilePattern);
  const excluded = exclude.map(compilePattern);
  return (server, name) => included.some((matches) => matches(server, name)) && !excluded.some((matches) => matches(server, name));
}

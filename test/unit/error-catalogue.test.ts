import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERRORS, GATEWAY_CODES, SPEC_RESERVED_CODES, type ErrorEntry } from '../../src/protocol/error-catalogue.js';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));
const CATALOGUE = join(SRC, 'protocol', 'error-catalogue.ts');
const entries = Object.entries(ERRORS) as [string, ErrorEntry][];

/** The code of a file with its comments blanked: a code named in a comment is documentation, not an answer. */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/** JSON-RPC error code literals (-32768..-32000) in a file's code, with their line numbers. */
function codeLiterals(source: string): { line: number; text: string }[] {
  return withoutComments(source)
    .split('\n')
    .flatMap((text, index) => (/-\s*32[0-7]\d\d\b/.test(text) ? [{ line: index + 1, text: text.trim() }] : []));
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('the error catalogue', () => {
  it('gives each code one meaning: entries sharing a code name the same root with sameAs', () => {
    const rootOf = (name: string, entry: ErrorEntry) => entry.sameAs ?? name;
    const meaningsByCode = new Map<number, Set<string>>();
    for (const [name, entry] of entries) {
      const meanings = meaningsByCode.get(entry.code) ?? new Set<string>();
      meanings.add(rootOf(name, entry));
      meaningsByCode.set(entry.code, meanings);
    }
    const shared = [...meaningsByCode].filter(([, meanings]) => meanings.size > 1).map(([code, meanings]) => `${code}: ${[...meanings].join(', ')}`);
    expect(shared).toEqual([]);
  });

  it('points every sameAs at a root entry of the same code', () => {
    const wrong = entries
      .filter(([, entry]) => entry.sameAs !== undefined)
      .filter(([, entry]) => {
        const root = (ERRORS as Record<string, ErrorEntry>)[entry.sameAs as string];
        return root === undefined || root.sameAs !== undefined || root.code !== entry.code;
      })
      .map(([name]) => name);
    expect(wrong).toEqual([]);
  });

  it("keeps the gateway's own codes out of the range 2026-07-28 reserves", () => {
    // 2026-07-28's own, and 2025-11-25's URLElicitationRequiredError (-32042), which it keeps.
    const specDefined = new Set<number>([ERRORS.HeaderMismatch.code, ERRORS.MissingRequiredClientCapability.code, ERRORS.UnsupportedProtocolVersion.code, ERRORS.UrlElicitationRequired.code]);
    const inReserved = entries
      .filter(([, { code }]) => code >= SPEC_RESERVED_CODES.min && code <= SPEC_RESERVED_CODES.max && !specDefined.has(code))
      .map(([name]) => name);
    expect(inReserved).toEqual([]);
    const jsonRpc = new Set([-32700, -32600, -32601, -32602, -32603, ERRORS.ResourceNotFound.code, ...specDefined]);
    const stray = entries.filter(([, { code }]) => !jsonRpc.has(code) && (code < GATEWAY_CODES.min || code > GATEWAY_CODES.max)).map(([name]) => name);
    expect(stray).toEqual([]);
  });

  it('keeps the codes the MCP specification and its SDKs fix', () => {
    expect(ERRORS.UrlElicitationRequired.code).toBe(-32042);
    expect([ERRORS.ParseError.code, ERRORS.InvalidRequest.code, ERRORS.MethodNotFound.code, ERRORS.InvalidParams.code, ERRORS.InternalError.code]).toEqual([
      -32700, -32600, -32601, -32602, -32603,
    ]);
    expect([ERRORS.ResourceNotFound.code, ERRORS.HeaderMismatch.code, ERRORS.MissingRequiredClientCapability.code, ERRORS.UnsupportedProtocolVersion.code]).toEqual([
      -32002, -32020, -32021, -32022,
    ]);
    expect([ERRORS.UpstreamUnavailable.code, ERRORS.RequestTimeout.code, ERRORS.LimitExceeded.code, ERRORS.UpstreamCredential.code]).toEqual([-32000, -32001, -32003, -32004]);
  });

  it('describes every entry for the reference page', () => {
    const bare = entries.filter(([, entry]) => entry.when.trim() === '' || entry.remedy.trim() === '').map(([name]) => name);
    expect(bare).toEqual([]);
  });
});

describe('JSON-RPC error codes in src/', () => {
  it('are written only in the catalogue', () => {
    const found = tsFiles(SRC)
      .filter((path) => path !== CATALOGUE)
      .flatMap((path) => codeLiterals(readFileSync(path, 'utf8')).map(({ line, text }) => `${relative(SRC, path)}:${line}: ${text}`));
    expect(found).toEqual([]);
  });

  it('are found by the scan in code, and not in comments', () => {
    const source = [
      '// -32000 in a line comment',
      '/* -32001 in a block',
      '   comment */ const url = "https://example.test";',
      'const code = -32005;',
      "throw new RpcError(- 32601, 'x');",
    ].join('\n');
    expect(codeLiterals(source).map(({ line }) => line)).toEqual([4, 5]);
  });
});

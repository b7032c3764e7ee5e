// VS Code's `.vscode/mcp.json` keeps its servers under `servers`, beside `inputs` (values VS Code asks
// the person for when a server starts). Pasting that file should run, as a Claude Desktop or Cursor
// file does, so such a file is read as `mcpServers`. A gateway has no person to ask, so a server that
// uses an `${input:...}` is refused with the environment variable to use instead, at the key path
// where the input is used. Only a file with `servers` and none of the gateway's own sections is read
// this way: in a gateway config, `servers` is an unknown key, as before.
import { isPlainObject, type KeyPath, type PathProblem } from './key-path.js';

/** Top-level keys a VS Code mcp.json may hold besides `servers`. */
const VSCODE_KEYS = new Set(['servers', 'inputs']);
const INPUT_REFERENCE = /\$\{input:([^}]*)\}/g;

export interface VsCodeShape {
  readonly tree: Record<string, unknown>;
  readonly problems: readonly PathProblem[];
  /** Key paths already reported, so the later steps do not add a vaguer line about the same key. */
  readonly reported: readonly KeyPath[];
}

export function fromVsCodeShape(tree: Record<string, unknown>): VsCodeShape {
  const keys = Object.keys(tree);
  if (!isPlainObject(tree.servers) || !keys.every((key) => VSCODE_KEYS.has(key))) return { tree, problems: [], reported: [] };
  const problems: PathProblem[] = [];
  const reported: KeyPath[] = [];
  const walk = (node: unknown, at: KeyPath): void => {
    if (typeof node === 'string') {
      for (const [, id] of node.matchAll(INPUT_REFERENCE)) {
        problems.push({ path: at, message: `VS Code asks for \${input:${id}} when the server starts; a gateway cannot ask: write \${${envNameFor(id ?? '')}} and set that environment variable` });
        reported.push(at);
      }
      return;
    }
    if (Array.isArray(node)) node.forEach((item, index) => walk(item, [...at, index]));
    else if (isPlainObject(node)) for (const [key, value] of Object.entries(node)) walk(value, [...at, key]);
  };
  walk(tree.servers, ['mcpServers']);
  return { tree: { mcpServers: tree.servers }, problems, reported };
}

/** `github-token` -> GITHUB_TOKEN: the variable name the message suggests for an input id. */
function envNameFor(id: string): string {
  const name = id.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toUpperCase();
  return /^[A-Z_]/.test(name) ? name : `INPUT_${name}`;
}

// Live tools against their pins: per tool a verdict, per server a comparison, and what the gateway
// does about each under `pinning` (pure: the gateway's state and side effects are in enforcer.ts).
import type { JsonObject } from '../protocol/json.js';
import { liveDefinition, type ToolDefinition } from './definition.js';
import type { Pin, ServerPins } from './lock-file.js';

export type PinningMode = 'off' | 'warn' | 'enforce';
/** What becomes of a tool the lock file has no pin for (a new tool, or a server not in the file). */
export type UnpinnedTools = 'withhold' | 'allow';

export interface PinPolicy {
  readonly mode: Exclude<PinningMode, 'off'>;
  readonly unpinnedTools: UnpinnedTools;
}

export type ToolVerdict =
  /** The live definition is the pinned one. */
  | { readonly kind: 'pinned' }
  | { readonly kind: 'changed'; readonly pin: Pin; readonly live: ToolDefinition; readonly digest: string }
  | { readonly kind: 'unpinned'; readonly live: ToolDefinition; readonly digest: string };

const PINNED: ToolVerdict = { kind: 'pinned' };

/** `pins` undefined: the server is not in the lock file, so none of its tools is pinned. */
export function judgeTool(pins: ServerPins | undefined, tool: JsonObject): ToolVerdict {
  const { definition, digest } = liveDefinition(tool);
  const pin = pins?.get(definition.name);
  if (pin === undefined) return { kind: 'unpinned', live: definition, digest };
  return pin.digest === digest ? PINNED : { kind: 'changed', pin, live: definition, digest };
}

/** Under enforce, a changed tool is withheld, and an unpinned one unless unpinnedTools is allow. */
export function withholds(policy: PinPolicy, verdict: ToolVerdict): boolean {
  return policy.mode === 'enforce' && isMismatch(policy, verdict);
}

/** What is logged and counted (and withheld under enforce): a tool an operator has not approved as it is. */
export function isMismatch(policy: PinPolicy, verdict: ToolVerdict): boolean {
  return verdict.kind === 'changed' || (verdict.kind === 'unpinned' && policy.unpinnedTools === 'withhold');
}

export interface ChangedTool {
  readonly name: string;
  readonly pin: Pin;
  readonly live: Pin;
}

/** One server's live tools against its pins. Names in code-point order. */
export interface ServerComparison {
  readonly server: string;
  /** Whether the lock file has an entry for the server at all. */
  readonly inLock: boolean;
  /** False for a pinned server the config no longer has, or has disabled: its pins are all `removed`. */
  readonly inConfig: boolean;
  readonly changed: readonly ChangedTool[];
  /** Listed, with no pin. */
  readonly added: readonly Pin[];
  /** Pinned, no longer listed. */
  readonly removed: readonly Pin[];
  /** Listed and matching its pin. */
  readonly unchanged: number;
}

/** `live` undefined: the config no longer has the server (or has disabled it), so nothing of it is listed. */
export function compareServer(server: string, pinned: ServerPins | undefined, live: ServerPins | undefined): ServerComparison {
  const inConfig = live !== undefined;
  live ??= new Map();
  const changed: ChangedTool[] = [];
  const added: Pin[] = [];
  let unchanged = 0;
  for (const name of [...live.keys()].sort()) {
    const now = live.get(name)!;
    const pin = pinned?.get(name);
    if (pin === undefined) added.push(now);
    else if (pin.digest === now.digest) unchanged += 1;
    else changed.push({ name, pin, live: now });
  }
  const removed = [...(pinned?.keys() ?? [])]
    .sort()
    .filter((name) => !live.has(name))
    .map((name) => pinned!.get(name)!);
  return { server, inLock: pinned !== undefined, inConfig, changed, added, removed, unchanged };
}

export function isClean(comparison: ServerComparison): boolean {
  return comparison.inLock && comparison.changed.length === 0 && comparison.added.length === 0 && comparison.removed.length === 0;
}

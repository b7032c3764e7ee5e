// A client-side load balancer for tests: each request goes to the next live replica, as a
// round-robin balancer without sticky sessions would send it.
import type { FetchLike } from '@modelcontextprotocol/client';

export interface Replica {
  readonly url: string;
  readonly child?: { readonly exitCode: number | null; readonly signalCode: NodeJS.Signals | null };
}

export function roundRobinFetch(replicas: () => readonly Replica[]): FetchLike {
  let next = 0;
  return (url, init) => {
    const live = replicas().filter((replica) => !replica.child || (replica.child.exitCode === null && replica.child.signalCode === null));
    const target = new URL(String(url));
    const replica = live[next++ % Math.max(live.length, 1)];
    if (replica) target.host = new URL(replica.url).host;
    return fetch(target, init);
  };
}

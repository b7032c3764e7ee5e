// The gateway's tasks, wired to the rest of it: the task store and the bus (any replica answers),
// this replica's upstream connections for what another replica relays, the inbox that holds a 2025
// upstream's questions for a 2026 client's task, gateway-run tasks for plain servers, and the relay's
// two hooks that send an upstream's question for a task to the right place.
import type { KeyValueStore } from '../../session/key-value.js';
import type { Bus } from '../../session/bus.js';
import type { SessionStore } from '../../session/store.js';
import type { JsonObject } from '../../protocol/json.js';
import { UpstreamUnavailableError } from '../../upstream/errors.js';
import type { ServerRequestRelay } from '../calls/server-requests.js';
import type { IsolatedServers } from '../isolation/isolated-servers.js';
import type { SessionOutbox } from '../sessions/session-outbox.js';
import type { GatewayOptions } from '../gateway-types.js';
import { GatewayTasks } from './gateway-tasks.js';
import { hasOwnToolTasks } from './gateway-run-tools.js';
import { TaskInbox } from './task-inbox.js';

export interface TaskSideOptions {
  readonly tasks: KeyValueStore;
  readonly gatewayTasks: GatewayOptions['gatewayTasks'];
  readonly bus: Bus;
  readonly store: SessionStore;
  readonly upstreams: GatewayOptions['upstreams'];
  readonly isolated: IsolatedServers | undefined;
  readonly outbox: SessionOutbox;
  readonly relay: ServerRequestRelay;
}

export function taskSide({ tasks: store, gatewayTasks, bus, store: sessions, upstreams, isolated, outbox, relay }: TaskSideOptions): GatewayTasks {
  // A task request another replica relays has no client here: it goes straight to this replica's connection.
  const upstreamRequest = (server: string, method: string, params: JsonObject, signal?: AbortSignal) => {
    const upstream = upstreams.get(server);
    if (!upstream) return Promise.reject(new UpstreamUnavailableError(server, 'it is not configured'));
    return upstream.request(method, params, signal ? { signal } : {});
  };
  const inbox = new TaskInbox((server, upstreamTaskId) => upstreamRequest(server, 'tasks/result', { taskId: upstreamTaskId }));
  const tasks = new GatewayTasks({
    store,
    bus,
    local: (server, method, params, signal) => inbox.serve(server, method, params) ?? upstreamRequest(server, method, params, signal),
    ...(gatewayTasks && { gatewayTasks }),
    // A server each session has its own connection to is not run as gateway tasks (its lists are the session's, unmarked).
    isPlain: (server) => {
      const info = upstreams.get(server)?.info;
      return info !== undefined && !hasOwnToolTasks(info.capabilities) && isolated?.find(server) === undefined;
    },
    notify: async (session, message) => void (await outbox.toSessions([session], message)),
  });
  // A question for a 2026 client's task (bridged to a 2025 upstream) waits here for its tasks/update.
  relay.taskInbox = async (server, upstreamTaskId, request) => {
    const record = await tasks.ofUpstream(server, upstreamTaskId);
    return record && record.session === undefined && !record.modern ? inbox.hold(server, upstreamTaskId, request) : undefined;
  };
  // An upstream's question for a task goes to the session whose task it is (read fresh: any replica may hold it).
  relay.taskOwner = async (server, upstreamTaskId) => {
    const record = await tasks.ofUpstream(server, upstreamTaskId);
    const session = record?.session === undefined ? undefined : await sessions.get(record.session);
    return session && record && { session, taskId: record.id };
  };
  return tasks;
}

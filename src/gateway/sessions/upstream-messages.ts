// Notifications and requests that upstreams send on their own: each goes to the session it belongs
// to. resources/updated goes to the sessions subscribed to that URI, under the URI they know; a log
// message goes to the session whose request it came with (on that request's stream when it can),
// else, since a shared connection's own messages are the server's news for every client, to all.
import type { Logger } from '../../observe/logger.js';
import type { Upstream, UpstreamNotification } from '../../upstream/types.js';
import type { InFlightRegistry } from '../calls/in-flight.js';
import { isJsonObject } from '../../protocol/json.js';
import type { JsonRpcNotification } from '../../protocol/json-rpc.js';
import { admitsLogMessage } from './log-levels.js';
import { exposeUri } from '../catalogue/namespace.js';
import type { GatewayObserver } from '../observer.js';
import { Listens } from '../modern/listens.js';
import type { Routing } from '../calls/routing.js';
import type { ServerRequestRelay } from '../calls/server-requests.js';
import type { SessionOutbox } from './session-outbox.js';
import type { AskedSessions } from '../gateway-types.js';
import { upstreamElicitationKey } from '../calls/upstream-url-elicitations.js';
import type { SubscriptionCounter } from './subscriptions.js';
import type { GatewayTasks } from '../tasks/gateway-tasks.js';

/** Handled elsewhere: list changes by the catalogue, progress by the request that asked for it. */
const NOT_RELAYED = new Set([
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
  'notifications/progress',
  'notifications/cancelled',
]);

export interface UpstreamMessageRouterOptions {
  readonly inFlight: InFlightRegistry;
  readonly outbox: SessionOutbox;
  readonly subscriptions: SubscriptionCounter;
  readonly relay: ServerRequestRelay;
  readonly routing: Routing;
  readonly observer: Required<GatewayObserver>;
  readonly logger: Logger;
  /** 2026 listens subscribed to resources (their holder ids share the subscription counter). */
  readonly listens?: Listens;
  /** Which session each URL elicitation went to: an upstream's completion goes there alone. */
  readonly askedSessions?: AskedSessions;
  /** Whose task an upstream's notifications/tasks/status is about (absent: no tasks, and the notification goes nowhere). */
  readonly tasks?: GatewayTasks;
}

export class UpstreamMessageRouter {
  constructor(private readonly options: UpstreamMessageRouterOptions) {}

  attach(upstream: Upstream): () => void {
    upstream.setServerRequestHandler((request) => this.options.relay.relay(upstream.name, request));
    return upstream.onNotification((notification) => {
      void this.#route(upstream.name, notification).catch((error: unknown) => {
        this.options.logger.warn(
          { server: upstream.name, method: notification.method, err: error instanceof Error ? error.message : String(error) },
          'could not deliver an upstream notification',
        );
      });
    });
  }

  async #route(server: string, notification: UpstreamNotification): Promise<void> {
    if (NOT_RELAYED.has(notification.method)) return;
    if (notification.method === 'notifications/resources/updated') return this.#resourceUpdated(server, notification);
    if (notification.method === 'notifications/elicitation/complete') return this.#elicitationComplete(server, notification);
    if (notification.method === 'notifications/tasks/status') return this.#taskStatus(server, notification);

    const message: JsonRpcNotification = { jsonrpc: '2.0', method: notification.method, ...(notification.params && { params: notification.params }) };
    const attribution = this.options.inFlight.attribute(server);
    if (attribution.kind === 'caller') {
      const { caller } = attribution.request;
      // A 2026 caller hears log messages only on its request's own stream, and only when it asked
      // for a level; a 2025 session without a level gets the upstreams' default.
      if (caller.era === 'modern' && !attribution.related) return;
      if (caller.era === 'modern' && message.method === 'notifications/message' && caller.logLevel === undefined) return;
      if (!admitsLogMessage(message, caller.logLevel)) return;
      if (attribution.related) attribution.related.send(message);
      else if (caller.session) await this.options.outbox.toSessions([caller.session.id], message);
      else return;
      this.options.observer.onNotificationForwarded({ method: message.method, sessions: 1 });
      return;
    }
    // Level filtering of queued messages happens as each session's stream sends them.
    const sessions = await this.options.outbox.toAllSessions(message);
    this.options.observer.onNotificationForwarded({ method: message.method, sessions });
  }

  /**
   * To the session the upstream's URL elicitation went to (2025-11-25: "only to the client that
   * initiated"); an id nobody was given goes nowhere, never to every session.
   */
  async #elicitationComplete(server: string, notification: UpstreamNotification): Promise<void> {
    const elicitationId = isJsonObject(notification.params) ? notification.params.elicitationId : undefined;
    if (typeof elicitationId !== 'string') return;
    const sessionId = await this.options.askedSessions?.sessionOf(upstreamElicitationKey(server, elicitationId));
    if (sessionId === undefined) return;
    await this.options.outbox.toSessions([sessionId], { jsonrpc: '2.0', method: notification.method, params: { elicitationId } });
    this.options.observer.onNotificationForwarded({ method: notification.method, sessions: 1 });
  }

  /** To the session whose task it is, under the gateway's task id; never to all sessions (the id is the upstream's). */
  async #taskStatus(server: string, notification: UpstreamNotification): Promise<void> {
    const delivery = await this.options.tasks?.statusNotification(server, notification.params);
    if (!delivery) return;
    await this.options.outbox.toSessions([delivery.session], delivery.message);
    this.options.observer.onNotificationForwarded({ method: delivery.message.method, sessions: 1 });
  }

  async #resourceUpdated(server: string, notification: UpstreamNotification): Promise<void> {
    const params = notification.params;
    if (!isJsonObject(params) || typeof params.uri !== 'string') return;
    const holders = this.options.subscriptions.holders(server, params.uri);
    if (holders.length === 0) return;
    const listening = holders.filter((holder) => Listens.isHolder(holder));
    if (listening.length > 0) {
      const listens = this.options.listens?.deliverResourceUpdate(listening, server, params.uri, params) ?? 0;
      this.options.observer.onNotificationForwarded({ method: 'notifications/resources/updated', sessions: listens });
    }
    const sessionIds = listening.length === 0 ? holders : holders.filter((holder) => !Listens.isHolder(holder));
    if (sessionIds.length === 0) return;
    const prefixed = this.options.routing.servers.some((candidate) => candidate.name === server && candidate.prefix !== '');
    const uri = prefixed ? exposeUri(server, params.uri) : params.uri;
    const sessions = await this.options.outbox.toSessions(sessionIds, {
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { ...params, uri },
    });
    this.options.observer.onNotificationForwarded({ method: 'notifications/resources/updated', sessions });
  }
}

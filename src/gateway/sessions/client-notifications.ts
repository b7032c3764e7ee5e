// What a 2025 client's notifications do: `notifications/cancelled` aborts the request it names,
// on whichever replica runs it (by the bus), and `notifications/roots/list_changed` goes on to the
// upstreams, which may ask for roots again. Anything else a client sends needs no action.
import type { Bus } from '../../session/bus.js';
import type { SessionRecord } from '../../session/store.js';
import type { Upstream } from '../../upstream/types.js';
import type { InFlightRegistry } from '../calls/in-flight.js';
import type { IsolatedServers } from '../isolation/isolated-servers.js';
import type { JsonRpcNotification } from '../../protocol/json-rpc.js';

const CANCEL_TOPIC = 'cancel';

export interface ClientNotificationsOptions {
  readonly inFlight: InFlightRegistry;
  readonly upstreams: { readonly all: readonly Upstream[] };
  readonly isolated: IsolatedServers | undefined;
  readonly bus: Bus;
}

export class ClientNotifications {
  constructor(private readonly options: ClientNotificationsOptions) {}

  /** Follows cancellations sent by clients of other replicas; returns how to stop. */
  listen(): () => void {
    return this.options.bus.on(CANCEL_TOPIC, (payload) => {
      const { sessionId, requestId } = payload;
      if (typeof sessionId === 'string' && (typeof requestId === 'string' || typeof requestId === 'number')) {
        this.options.inFlight.cancel(sessionId, requestId);
      }
    });
  }

  async handle(session: SessionRecord, notification: JsonRpcNotification): Promise<void> {
    switch (notification.method) {
      case 'notifications/cancelled': {
        const requestId = notification.params?.requestId;
        if (typeof requestId !== 'string' && typeof requestId !== 'number') return;
        // The request may be running on another replica: the one that has it aborts it.
        if (!this.options.inFlight.cancel(session.id, requestId)) {
          await this.options.bus.broadcast(CANCEL_TOPIC, { sessionId: session.id, requestId });
        }
        return;
      }
      case 'notifications/roots/list_changed':
        // Upstreams ask for roots again; on a shared connection they reach this client only while
        // its requests are in flight there (see ServerRequestRelay).
        for (const upstream of this.options.upstreams.all) {
          if (upstream.state === 'ready') void upstream.notify(notification.method, notification.params).catch(() => {});
        }
        await this.options.isolated?.notifySession(session.id, notification.method, notification.params);
        return;
      default:
      // notifications/initialized and anything else a client may send need no action here.
    }
  }
}

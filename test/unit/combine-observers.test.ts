import { describe, expect, it } from 'vitest';
import { combineObservers, type GatewayObserver, type RequestEvent } from '../../src/gateway/observer.js';

const event: RequestEvent = { method: 'tools/call', outcome: 'ok', durationMs: 1, sessionId: '' };

describe('combineObservers', () => {
  it('tells every observer, in order, even after one of them throws', () => {
    const heard: string[] = [];
    const throwing: GatewayObserver = {
      onRequest: () => {
        heard.push('first');
        throw new Error('broken metrics');
      },
      onNotificationForwarded: () => {
        heard.push('first');
        throw new Error('broken metrics');
      },
    };
    const listening: GatewayObserver = {
      onRequest: (e) => heard.push(`second ${e.method}`),
      onNotificationForwarded: (e) => heard.push(`second ${e.method}`),
    };
    const combined = combineObservers([throwing, {}, listening]);
    expect(() => combined.onRequest(event)).not.toThrow();
    expect(() => combined.onNotificationForwarded({ method: 'notifications/tools/list_changed', sessions: 2 })).not.toThrow();
    expect(heard).toEqual(['first', 'second tools/call', 'first', 'second notifications/tools/list_changed']);
  });
});

import { describe, expect, it } from 'vitest';
import { createSessionStore } from '../../src/session/create-store.js';

describe('createSessionStore', () => {
  it('gives the memory store for store: memory', async () => {
    const store = createSessionStore({ store: 'memory', idleTimeoutSeconds: 60 });
    expect(store.kind).toBe('memory');
    await store.close();
  });

  it('refuses store: redis without a redisUrl, naming the setting', () => {
    expect(() => createSessionStore({ store: 'redis', idleTimeoutSeconds: 60 })).toThrow(/sessions\.redisUrl/);
  });

  it('refuses a Redis URL that is not redis:// without echoing it', () => {
    expect(() => createSessionStore({ store: 'redis', redisUrl: 'http://:secret@host', idleTimeoutSeconds: 60 })).toThrow(
      /^(?!.*secret).*redis:\/\//,
    );
  });

  it('refuses an idle timeout that is not a positive whole number of seconds', () => {
    expect(() => createSessionStore({ store: 'memory', idleTimeoutSeconds: 0 })).toThrow(/idleTimeoutSeconds/);
    expect(() => createSessionStore({ store: 'memory', idleTimeoutSeconds: 1.5 })).toThrow(/idleTimeoutSeconds/);
  });
});

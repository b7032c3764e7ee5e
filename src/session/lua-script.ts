// Runs a Lua script by its SHA1 and sends the source only when Redis does not know it yet (after a
// restart or on a fresh replica), which is what ioredis' defineCommand does, but typed.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

export class LuaScript {
  readonly #source: string;
  readonly #sha1: string;

  constructor(source: string) {
    this.#source = source;
    this.#sha1 = createHash('sha1').update(source).digest('hex');
  }

  async run(redis: Redis, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.#sha1, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) throw error;
      return redis.eval(this.#source, keys.length, ...keys, ...args);
    }
  }
}

// Which caller a message from a shared upstream belongs to (InFlightRegistry.attribute): the one
// caller with requests waiting on that upstream. A request keeps the upstreams it waits on as a set;
// these hold that set's rules, first upstream and later ones alike.
import { describe, expect, it } from 'vitest';
import type { Caller } from '../../src/gateway/caller.js';
import { InFlightRegistry } from '../../src/gateway/calls/in-flight.js';

function caller(key: string): Caller {
  return { era: 'modern', principal: undefined, protocolVersion: '2026-07-28', clientCapabilities: {}, key };
}

describe('requests in flight', () => {
  it('belong to no caller until they wait on the upstream, and to none once done with it', () => {
    const registry = new InFlightRegistry();
    const request = registry.start(caller('a'), 1, undefined);
    expect(registry.attribute('everything')).toEqual({ kind: 'none' });
    request.waitOn('everything');
    expect(registry.attribute('everything')).toMatchObject({ kind: 'caller', request });
    request.doneWith('everything');
    expect(registry.attribute('everything')).toEqual({ kind: 'none' });
  });

  it('wait on several upstreams as a set: each one added once, each one removed on its own', () => {
    const registry = new InFlightRegistry();
    const request = registry.start(caller('a'), 1, undefined);
    for (const server of ['one', 'two', 'three', 'two']) request.waitOn(server);
    expect(['one', 'two', 'three', 'four'].map((server) => request.waitsOn(server))).toEqual([true, true, true, false]);
    request.doneWith('one');
    expect(['one', 'two', 'three'].map((server) => request.waitsOn(server))).toEqual([false, true, true]);
    request.doneWith('two');
    expect(['one', 'two', 'three'].map((server) => request.waitsOn(server))).toEqual([false, false, true]);
    request.waitOn('one');
    request.doneWith('three');
    expect(['one', 'two', 'three'].map((server) => request.waitsOn(server))).toEqual([true, false, false]);
    expect(registry.attribute('one')).toMatchObject({ kind: 'caller', request });
    expect(registry.attribute('three')).toEqual({ kind: 'none' });
  });

  it('keep an upstream once even when the first one left and it is waited on again', () => {
    const registry = new InFlightRegistry();
    const request = registry.start(caller('a'), 1, undefined);
    request.waitOn('one');
    request.waitOn('two');
    request.doneWith('one');
    // 'two' is already waited on: saying so again must not put it in the first place as a second copy.
    request.waitOn('two');
    request.doneWith('two');
    expect(request.waitsOn('two')).toBe(false);
    expect(registry.attribute('two')).toEqual({ kind: 'none' });
  });

  it('are ambiguous on an upstream two callers wait on, and leave the registry when finished', () => {
    const registry = new InFlightRegistry();
    const first = registry.start(caller('a'), 1, undefined);
    const second = registry.start(caller('b'), 1, undefined);
    first.waitOn('everything');
    second.waitOn('everything');
    expect(registry.attribute('everything')).toEqual({ kind: 'ambiguous', callers: 2 });
    registry.finish(second);
    expect(registry.attribute('everything')).toMatchObject({ kind: 'caller', request: first });
    expect(registry.cancel('b', 1)).toBe(false);
    expect(registry.cancel('a', 1)).toBe(true);
  });

  it('are cancelled by their caller and id, a string id apart from the same number', () => {
    const registry = new InFlightRegistry();
    const numbered = registry.start(caller('a'), 7, undefined);
    const named = registry.start(caller('a'), '7', undefined);
    const elsewhere = registry.start(caller('b'), 7, undefined);
    const cancelled: string[] = [];
    numbered.onCancel(() => cancelled.push('a 7'));
    named.onCancel(() => cancelled.push("a '7'"));
    elsewhere.onCancel(() => cancelled.push('b 7'));
    expect(registry.cancel('a', '7')).toBe(true);
    expect(cancelled).toEqual(["a '7'"]);
    expect(registry.cancel('a', 8)).toBe(false);
    registry.finish(numbered);
    expect(registry.cancel('a', 7)).toBe(false);
    expect(cancelled).toEqual(["a '7'"]);
  });

  it('keep both requests of a caller that reused an id: a cancellation means the later, the end of the caller both', () => {
    const registry = new InFlightRegistry();
    const earlier = registry.start(caller('a'), 1, undefined);
    const later = registry.start(caller('a'), 1, undefined);
    const cancelled: string[] = [];
    earlier.onCancel(() => cancelled.push('earlier'));
    later.onCancel(() => cancelled.push('later'));
    expect(registry.cancel('a', 1)).toBe(true);
    expect(cancelled).toEqual(['later']);
    registry.finish(later);
    registry.cancelCaller('a');
    expect(cancelled).toEqual(['later', 'earlier']);
  });
});

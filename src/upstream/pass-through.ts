// Schemas that let messages through as they are, in the Standard Schema shape the client SDK
// takes: the gateway relays what upstreams and clients say, and checking shapes is the business of
// whoever consumes them (an SDK schema would also drop fields newer than the SDK).
import { isPlainObject } from './request-dialect.js';
import type { JsonObject } from './types.js';

/** Accepts any result object as it is. */
export const passThroughResult = {
  '~standard': {
    version: 1 as const,
    vendor: 'switchboard',
    validate: (value: unknown) => (isPlainObject(value) ? { value } : { issues: [{ message: 'the result is not a JSON object' }] }),
  },
};

/** Hands an upstream's request params over as they are; the client that answers checks them. */
export const passThroughSchemas = {
  params: {
    '~standard': {
      version: 1 as const,
      vendor: 'switchboard',
      validate: (value: unknown) => ({ value: (value ?? undefined) as JsonObject | undefined }),
    },
  },
  result: passThroughResult,
};

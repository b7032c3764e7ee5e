// The caller's validated access token, carried beside its principal for the one use the gateway
// has for it: as the `subject_token` of an RFC 8693 exchange (src/credentials/). It never goes to an
// upstream and never into a log line, a metric or the session store: serialized or inspected, it
// says what it is and nothing of its value, so a principal logged by mistake leaks nothing.
import { inspect } from 'node:util';

const HIDDEN = '[access token]';

export class AccessToken {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  /** The token itself, for the token endpoint's request body and nothing else. */
  reveal(): string {
    return this.#value;
  }

  toJSON(): string {
    return HIDDEN;
  }

  toString(): string {
    return HIDDEN;
  }

  [inspect.custom](): string {
    return HIDDEN;
  }
}

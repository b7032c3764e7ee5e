// The 401/403 challenges one HTTP connection got, so that a request or a connect that failed on
// one is reported as UpstreamAuthChallengeError (which upstream, why, where its authorization is
// described) rather than as the transport's generic "HTTP 401". The transports report what they
// see; the connection asks, after a failure, whether a challenge came since the attempt began.
import { readBearerChallenge } from './auth-challenge.js';
import { UpstreamAuthChallengeError } from './errors.js';

/** Told of each challenge an upstream sends (the gateway counts them in a metric). */
export type ChallengeListener = (server: string, status: number) => void;

export class ConnectionChallenges {
  #seen = 0;
  #last: { readonly status: number; readonly header: string | undefined } | undefined;

  constructor(
    private readonly server: string,
    private readonly listener: ChallengeListener | undefined,
  ) {}

  /** A mark to compare with after an attempt. */
  get mark(): number {
    return this.#seen;
  }

  /** A transport got this answer; only 401, and 403 with a challenge, are refusals of the credential. */
  saw(status: number, wwwAuthenticate: string | undefined): void {
    if (status !== 401 && !(status === 403 && wwwAuthenticate)) return;
    this.#seen += 1;
    this.#last = { status, header: wwwAuthenticate };
    this.listener?.(this.server, status);
  }

  /** The challenge that came since `mark`, as the error for the caller; undefined when none did. */
  since(mark: number): UpstreamAuthChallengeError | undefined {
    if (this.#seen === mark || !this.#last) return undefined;
    return new UpstreamAuthChallengeError(this.server, this.#last.status, readBearerChallenge(this.#last.header));
  }

  /** fetch that reports the challenges of what it fetches (for the SDK's transports). */
  watching(fetchImpl: typeof fetch): typeof fetch {
    return async (url, init) => {
      const response = await fetchImpl(url, init);
      if (response.status === 401 || response.status === 403) this.saw(response.status, response.headers.get('www-authenticate') ?? undefined);
      return response;
    };
  }
}

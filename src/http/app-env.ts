// The per-request values middleware hands to routes.
import type { Principal } from '../auth/principal.js';

export interface AppEnv {
  Variables: {
    /** The authenticated principal; undefined when auth is off. */
    principal: Principal | undefined;
    requestId: string;
  };
}

// The per-request values middleware hands to routes.
export interface AppEnv {
  Variables: {
    /** The authenticated principal (token `sub`); undefined when auth is off. */
    principal: string | undefined;
    requestId: string;
  };
}

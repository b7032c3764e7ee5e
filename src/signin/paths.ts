// Where the authorization server's endpoints and the person's pages are, under the issuer (the
// gateway's public origin). A file of its own so that the HTTP layer can route by them without
// loading oidc-provider.
/** Where oidc-provider's endpoints are, under the issuer (the gateway's public origin). */
export const ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  userinfo: '/oauth/userinfo',
  end_session: '/oauth/logout',
  introspection: '/oauth/introspect',
  pushed_authorization_request: '/oauth/par',
  code_verification: '/oauth/device',
  device_authorization: '/oauth/device/auth',
  backchannel_authentication: '/oauth/backchannel',
  challenge: '/oauth/challenge',
  credential: '/oauth/credential',
} as const;
export const INTERACTION_PATH = '/oauth/interaction';

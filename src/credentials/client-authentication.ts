// How the gateway proves to the token endpoint that it is the client it says (RFC 6749 section 2.3,
// RFC 7523 section 2.2). Each method gives the headers and form fields of one request; the token
// exchange adds its own fields beside them. Nothing here is ever put in a message: an import that
// fails says which setting is wrong, not what it holds.
import { randomUUID } from 'node:crypto';
import { importPKCS8, SignJWT, type CryptoKey } from 'jose';
import type { TokenExchangeConfig } from '../config/credentials.js';

export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** An assertion is good for one request sent now: a minute covers clock skew, and no more is needed. */
const ASSERTION_LIFETIME_SECONDS = 60;

export interface ClientCredentials {
  readonly headers: Readonly<Record<string, string>>;
  readonly fields: Readonly<Record<string, string>>;
}

/** Gives the client authentication of one request to the token endpoint. */
export type ClientAuthentication = () => Promise<ClientCredentials>;

/** Thrown when the configured private key cannot be used; says which setting, never the key. */
export class ClientKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClientKeyError';
  }
}

type AuthenticationConfig = Pick<TokenExchangeConfig, 'tokenEndpoint' | 'clientId' | 'clientSecret' | 'clientAuthentication' | 'privateKey' | 'privateKeyAlgorithm' | 'keyId'>;

/** Throws at once when the config lacks what its method needs (the schema already checks it). */
export function clientAuthentication(config: AuthenticationConfig): ClientAuthentication {
  const { clientId, clientSecret } = config;
  switch (config.clientAuthentication) {
    case 'client_secret_basic': {
      if (clientSecret === undefined) throw new Error('client_secret_basic needs a clientSecret');
      // RFC 6749 2.3.1: id and secret are form-urlencoded before they are joined and base64-encoded,
      // so a ':' or a non-ASCII character in either cannot be misread by the server.
      const basic = Buffer.from(`${formUrlEncode(clientId)}:${formUrlEncode(clientSecret)}`, 'utf8').toString('base64');
      const credentials: ClientCredentials = { headers: { authorization: `Basic ${basic}` }, fields: {} };
      return () => Promise.resolve(credentials);
    }
    case 'client_secret_post': {
      if (clientSecret === undefined) throw new Error('client_secret_post needs a clientSecret');
      const credentials: ClientCredentials = { headers: {}, fields: { client_id: clientId, client_secret: clientSecret } };
      return () => Promise.resolve(credentials);
    }
    case 'private_key_jwt':
      return privateKeyJwt(config);
  }
}

function privateKeyJwt({ tokenEndpoint, clientId, privateKey, privateKeyAlgorithm, keyId }: AuthenticationConfig): ClientAuthentication {
  if (privateKey === undefined) throw new Error('private_key_jwt needs a privateKey');
  // Imported once, on first use: importPKCS8 is asynchronous and the source is made synchronously.
  // A key that does not import fails every exchange with the same message until the config is fixed.
  let key: Promise<CryptoKey> | undefined;
  const imported = (): Promise<CryptoKey> =>
    (key ??= importPKCS8(privateKey, privateKeyAlgorithm).catch(() => {
      throw new ClientKeyError(`its privateKey is not a PKCS#8 PEM private key for ${privateKeyAlgorithm} ("-----BEGIN PRIVATE KEY-----")`);
    }));
  return async () => {
    const assertion = await new SignJWT({})
      .setProtectedHeader({ alg: privateKeyAlgorithm, typ: 'JWT', ...(keyId !== undefined && { kid: keyId }) })
      .setIssuer(clientId)
      .setSubject(clientId)
      .setAudience(tokenEndpoint)
      // A fresh jti per request, so a server that remembers them can refuse a replayed assertion.
      .setJti(randomUUID())
      .setIssuedAt()
      .setExpirationTime(`${ASSERTION_LIFETIME_SECONDS}s`)
      .sign(await imported());
    // client_id is optional beside an assertion (RFC 7521 4.2); servers that route by it need it.
    return { headers: {}, fields: { client_id: clientId, client_assertion_type: CLIENT_ASSERTION_TYPE, client_assertion: assertion } };
  };
}

/** application/x-www-form-urlencoded for one value (RFC 6749 appendix B): what URLSearchParams writes. */
function formUrlEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

// The Connections page's form token: an HMAC of the action, the server and the person (a key
// derived from auth.signIn.secret, so every replica makes and checks the same), as sign-in's consent
// form has (signin/sign-in.ts formToken). A form made anywhere else, or for another person, server or
// action, is refused even where the browser would send the session cookie along.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

export type FormAction = 'connect' | 'disconnect';

export class FormTokens {
  readonly #key: Buffer;

  constructor(secret: string) {
    this.#key = Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), 'switchboard', 'person-pages-form', 32));
  }

  of(action: FormAction, server: string, sub: string): string {
    return createHmac('sha256', this.#key).update(`${action}\n${server}\n${sub}`, 'utf8').digest('base64url');
  }

  matches(action: FormAction, server: string, sub: string, token: string): boolean {
    const expected = Buffer.from(this.of(action, server, sub), 'utf8');
    const given = Buffer.from(token, 'utf8');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

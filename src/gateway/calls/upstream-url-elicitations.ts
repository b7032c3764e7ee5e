// An upstream's own URL elicitations (2025-11-25): its URLElicitationRequiredError (-32042), or a
// URL-mode elicitation/create it sends during a call, reach the client whose request it was. The
// elicitationIds are noted with that client's session (AskedSessions, under the server's name, so
// one upstream cannot complete another's), so that the upstream's notifications/elicitation/complete
// goes to that session alone, never to every session. A 2026-07-28 client, which has neither the
// error nor the notification, is asked through input_required instead (modern/adapter.ts).
import { ERRORS } from '../../protocol/error-catalogue.js';
import { isJsonObject, type JsonObject } from '../../protocol/json.js';

export interface UrlElicitation {
  readonly elicitationId: string;
  readonly url: string;
  readonly message: string;
}

/** The key an upstream's elicitation is noted under (the gateway's own connect links use bare ids). */
export function upstreamElicitationKey(server: string, elicitationId: string): string {
  return `upstream:${server}:${elicitationId}`;
}

export function isUrlElicitationRequired(code: number): boolean {
  return code === ERRORS.UrlElicitationRequired.code;
}

/** The URL elicitations of a -32042 error's data; malformed entries are left out. */
export function urlElicitationsOf(data: unknown): UrlElicitation[] {
  if (!isJsonObject(data) || !Array.isArray(data.elicitations)) return [];
  return data.elicitations.flatMap((entry: unknown) => (isUrlElicitation(entry) ? [{ elicitationId: entry.elicitationId, url: entry.url, message: entry.message }] : []));
}

/** The elicitationId of a URL-mode elicitation/create, when it is one. */
export function urlElicitationIdOf(method: string, params: JsonObject | undefined): string | undefined {
  if (method !== 'elicitation/create' || params?.mode !== 'url') return undefined;
  return typeof params.elicitationId === 'string' ? params.elicitationId : undefined;
}

/** A -32042's elicitations as 2026-07-28 asks for them: input requests of URL mode (no elicitationId there). */
export function urlInputRequests(elicitations: readonly UrlElicitation[]): JsonObject {
  return Object.fromEntries(elicitations.map((elicitation, index) => [`url-${index + 1}`, { method: 'elicitation/create', params: { mode: 'url', url: elicitation.url, message: elicitation.message } }]));
}

function isUrlElicitation(value: unknown): value is { mode: 'url'; elicitationId: string; url: string; message: string } {
  return isJsonObject(value) && value.mode === 'url' && typeof value.elicitationId === 'string' && typeof value.url === 'string' && typeof value.message === 'string';
}

// Progress tokens on a shared upstream connection: the upstream client mints its own token per
// request, and the gateway maps progress back to the token the client chose.
import { isJsonObject, type JsonObject } from '../../protocol/json.js';

/** The client's progress token, if it asked for progress. */
export function progressTokenOf(params: JsonObject | undefined): string | number | undefined {
  const meta = params?._meta;
  if (!isJsonObject(meta)) return undefined;
  const token = meta.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}


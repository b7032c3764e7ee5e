// What the access-control checks report when they refuse a request at the HTTP level: the audit
// trail writes one line per refusal (src/observe/audit.ts).
import type { HttpRefusalReason } from '../../observe/audit-events.js';
import type { RequestHead } from '../request-head.js';

export interface RefusalEvent {
  readonly outcome: 'unauthenticated' | 'denied';
  /** A short, fixed word, each documented in the audit log reference (observe/audit-events.ts). */
  readonly reason: HttpRefusalReason;
  /** What exactly was wrong, for the operator; never the token itself. */
  readonly detail?: string;
  readonly status: number;
  readonly httpMethod: string;
  /** The request's path (which endpoint it was for). */
  readonly path: string;
  readonly sub?: string;
  readonly sessionId?: string;
  /** The peer address. */
  readonly client: string;
  readonly requestId?: string;
}

export type RefusalListener = (event: RefusalEvent) => void;

export function refusalEvent(
  head: RequestHead,
  fields: Pick<RefusalEvent, 'outcome' | 'reason' | 'status'> & { detail?: string; sub?: string },
): RefusalEvent {
  const sessionId = head.header('mcp-session-id');
  const { requestId } = head;
  return {
    ...fields,
    httpMethod: head.method,
    path: head.path,
    client: head.clientAddress(),
    ...(sessionId !== undefined && sessionId !== '' && { sessionId }),
    ...(requestId !== undefined && { requestId }),
  };
}

/** Calls the listener without letting its failure touch the request. */
export function report(listener: RefusalListener | undefined, event: () => RefusalEvent): void {
  if (!listener) return;
  try {
    listener(event());
  } catch {
    // The audit trail's failure is not the client's problem.
  }
}

const CLOSE: Readonly<Record<string, string>> = Object.freeze({ Connection: 'close' });
const NONE: Readonly<Record<string, string>> = Object.freeze({});

/**
 * Headers for a refusal sent before the request body was read: `Connection: close`, so that the
 * client does not send its next request on a socket the server will drop once the unread rest of
 * this body has been discarded (or not, when it is large or slow).
 */
export function unreadBodyHeaders(head: RequestHead): Readonly<Record<string, string>> {
  return head.bodyUnread() ? CLOSE : NONE;
}

// The official v2 client, as a capable MCP client would be set up (sampling, elicitation, roots),
// recording every notification it receives so tests can say what arrived, once, and where.
import { Client, StreamableHTTPClientTransport, type FetchLike } from '@modelcontextprotocol/client';

export interface ReceivedNotification {
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
}

export interface RecordingClientOptions {
  /** Which of sampling, elicitation and roots to declare; all three by default. */
  readonly capabilities?: readonly ('sampling' | 'elicitation' | 'roots')[];
  readonly fetch?: FetchLike;
  readonly name?: string;
}

export interface RecordingClient {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  readonly notifications: ReceivedNotification[];
  /** Server-to-client requests it answered, in order. */
  readonly requests: { method: string; params: unknown }[];
  /** Resolves when `count` notifications of `method` have arrived (or rejects after timeoutMs). */
  waitFor(method: string, count?: number, timeoutMs?: number): Promise<ReceivedNotification[]>;
  received(method: string): ReceivedNotification[];
  close(): Promise<void>;
}

const RECORDED = [
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
  'notifications/message',
] as const;

export async function connectRecordingClient(url: string, options: RecordingClientOptions = {}): Promise<RecordingClient> {
  const declared = new Set(options.capabilities ?? ['sampling', 'elicitation', 'roots']);
  const client = new Client(
    { name: options.name ?? 'recording-client', version: '1.0.0' },
    {
      capabilities: {
        ...(declared.has('sampling') && { sampling: {} }),
        ...(declared.has('elicitation') && { elicitation: { form: {} } }),
        ...(declared.has('roots') && { roots: { listChanged: true } }),
      },
    },
  );
  const notifications: ReceivedNotification[] = [];
  const requests: { method: string; params: unknown }[] = [];
  const waiters = new Set<() => void>();
  for (const method of RECORDED) {
    client.setNotificationHandler(method, (notification) => {
      notifications.push({ method, params: notification.params as Record<string, unknown> | undefined });
      for (const waiter of waiters) waiter();
    });
  }
  if (declared.has('sampling')) {
    client.setRequestHandler('sampling/createMessage', async (request) => {
      requests.push({ method: 'sampling/createMessage', params: request.params });
      const first = request.params.messages[0]?.content;
      const prompt = first && 'text' in first ? String(first.text) : '';
      return { role: 'assistant', content: { type: 'text', text: `sampled: ${prompt}` }, model: 'test-model', stopReason: 'endTurn' };
    });
  }
  if (declared.has('elicitation')) {
    client.setRequestHandler('elicitation/create', async (request) => {
      requests.push({ method: 'elicitation/create', params: request.params });
      return { action: 'accept', content: { answer: 'forty-two' } };
    });
  }
  if (declared.has('roots')) {
    client.setRequestHandler('roots/list', async (request) => {
      requests.push({ method: 'roots/list', params: request.params });
      return { roots: [{ uri: 'file:///work/project', name: 'project' }] };
    });
  }

  const transport = new StreamableHTTPClientTransport(new URL(url), { ...(options.fetch && { fetch: options.fetch }) });
  await client.connect(transport);

  const received = (method: string) => notifications.filter((notification) => notification.method === method);
  return {
    client,
    transport,
    notifications,
    requests,
    received,
    waitFor(method, count = 1, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const matching = received(method);
          if (matching.length < count) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(matching);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`expected ${count} ${method}, got ${received(method).length} within ${timeoutMs} ms`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      });
    },
    async close() {
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
}

/** The text of a tool result's first content block. */
export function firstText(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content;
  return content?.[0]?.text ?? '';
}

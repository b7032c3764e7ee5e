// The official v2 client speaking MCP 2026-07-28 to a gateway: pinned to the revision (or probing
// with `auto`), with handlers for what upstreams may ask (sampling, elicitation, roots), so that an
// input_required answer is fulfilled by the client itself, as a deployed 2026 client does.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export interface ModernClientOptions {
  /** `pin` (default) speaks only 2026-07-28; `auto` probes with server/discover first. */
  readonly negotiation?: 'pin' | 'auto';
  /** Capabilities to declare; default sampling, elicitation and roots, each answered below. */
  readonly capabilities?: Record<string, unknown>;
  readonly headers?: Record<string, string>;
}

export const SAMPLED_TEXT = 'sampled by the 2026 client';
export const ELICITED_ANSWER = 'elicited from the 2026 client';
export const CLIENT_ROOTS = [{ uri: 'file:///workspace/modern', name: 'modern' }];

export async function connectModern(url: string, options: ModernClientOptions = {}): Promise<Client> {
  const capabilities = options.capabilities ?? { sampling: {}, elicitation: { form: {} }, roots: {} };
  const client = new Client(
    { name: 'switchboard-tests-2026', version: '1.0.0' },
    {
      capabilities,
      versionNegotiation: { mode: options.negotiation === 'auto' ? 'auto' : { pin: '2026-07-28' } },
    },
  );
  if ('sampling' in capabilities) {
    client.setRequestHandler('sampling/createMessage', async () => ({
      role: 'assistant' as const,
      content: { type: 'text' as const, text: SAMPLED_TEXT },
      model: 'test-model',
    }));
  }
  if ('elicitation' in capabilities) {
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept' as const, content: { answer: ELICITED_ANSWER } }));
  }
  if ('roots' in capabilities) client.setRequestHandler('roots/list', async () => ({ roots: CLIENT_ROOTS }));
  await client.connect(new StreamableHTTPClientTransport(new URL(url), options.headers ? { requestInit: { headers: options.headers } } : undefined));
  return client;
}

// A fetch whose every connection goes to one server, whatever the URL's host and port: a client
// that reaches one replica behind the public address (as a load balancer with sticky connections
// would send it), while the URLs it sees and sends stay the public ones.
import { connect } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';

export function pinnedFetch(serverUrl: string): typeof fetch {
  const target = new URL(serverUrl);
  const agent = new Agent({
    connect: (_options, callback) => {
      const socket = connect(Number(target.port), target.hostname);
      socket.once('connect', () => callback(null, socket));
      socket.once('error', (error) => callback(error, null));
      return socket;
    },
  });
  return ((input: string | URL | Request, init?: RequestInit) => undiciFetch(input as never, { ...(init as object), dispatcher: agent } as never)) as unknown as typeof fetch;
}

// What a failed connection is reported as: the URL without its secrets, and the socket's error once
// however many layers wrap it (the integration test, http-transports.test.ts, uses a real closed port).
import { describe, expect, it } from 'vitest';
import { describeConnectError, urlForMessages } from '../../src/upstream/request-errors.js';

function socketError(message: string, code: string, syscall: string): Error {
  return Object.assign(new Error(message), { code, syscall });
}

describe('a connection error', () => {
  it('names the URL without user info, query or fragment', () => {
    expect(urlForMessages('https://user:pass@mcp.example.com:8443/team/mcp?token=abc#x')).toBe('https://mcp.example.com:8443/team/mcp');
  });

  it('gives the first socket error of several addresses tried, once', () => {
    const both = new AggregateError([socketError('connect ECONNREFUSED ::1:9', 'ECONNREFUSED', 'connect'), socketError('connect ECONNREFUSED 127.0.0.1:9', 'ECONNREFUSED', 'connect')]);
    const fetchFailed = new TypeError('fetch failed', { cause: both });
    expect(describeConnectError(new Error('Version negotiation probe failed: fetch failed', { cause: fetchFailed }), 'http://localhost:9/mcp')).toBe(
      'could not connect to http://localhost:9/mcp: connect ECONNREFUSED ::1:9',
    );
  });

  it('without a socket error, says each layer once', () => {
    const timeout = Object.assign(new Error('Connect Timeout Error (attempted address: mcp.example.com:443, timeout: 10000ms)'), { code: 'UND_ERR_CONNECT_TIMEOUT' });
    const fetchFailed = new TypeError('fetch failed', { cause: timeout });
    expect(describeConnectError(new Error('Version negotiation probe failed: fetch failed', { cause: fetchFailed }), 'https://mcp.example.com/mcp')).toBe(
      'could not connect to https://mcp.example.com/mcp: Version negotiation probe failed: fetch failed: Connect Timeout Error (attempted address: mcp.example.com:443, timeout: 10000ms)',
    );
  });

  it('does not repeat a URL an error quotes whole, secrets and all', () => {
    const url = 'http://someone:secret@127.0.0.1:9/mcp';
    expect(describeConnectError(new TypeError(`Request cannot be constructed from a URL that includes credentials: ${url}`), url)).toBe(
      'could not connect to http://127.0.0.1:9/mcp: Request cannot be constructed from a URL that includes credentials: http://127.0.0.1:9/mcp',
    );
  });
});

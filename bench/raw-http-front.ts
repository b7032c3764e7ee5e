// The HTTP front of the floor and the reference proxy, and the JSON answer both write: node:http,
// or with BENCH_FRONT=raw (the floor-raw and min-proxy-raw targets) a bare `node:net` socket reader,
// a measuring instrument rather than a server, to say what node:http's own machinery costs a front
// per call on this machine: the IncomingMessage and ServerResponse streams, their events and
// timers, the headers object. The reader takes only what the bench's own load sends, well-formed
// HTTP/1.1 requests framed by Content-Length, and closes the connection on anything else. It has
// none of what a server facing real clients needs (chunked bodies, Expect, limits and timeouts
// against slow or hostile peers, smuggling checks), which is why the gateway does not serve from
// one: see README.md here, the `node:http` bullet.
import { createServer as createHttpServer, type IncomingHttpHeaders, type Server as HttpServer } from 'node:http';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';

/** The part of node:http's ServerResponse the floor and the reference proxy use. */
export interface Reply {
  writeHead(status: number, headers?: Readonly<Record<string, string | number>>): { end(text?: string): unknown };
}

/** A JSON answer, as the floor and the reference proxy write every one. */
export function answerJson(reply: Reply, status: number, message: object, headers: Readonly<Record<string, string>> = {}): void {
  const text = JSON.stringify(message);
  reply.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers }).end(text);
}

/** A whole request: what the floor and the reference proxy read of one. */
export type Handler = (method: string, headers: IncomingHttpHeaders, body: string, reply: Reply) => void;

/** The front BENCH_FRONT names: node:http (the default), or the raw socket reader below. */
export function frontServer(handle: Handler): HttpServer | NetServer {
  return process.env.BENCH_FRONT === 'raw' ? rawServer(handle) : httpServer(handle);
}

function httpServer(handle: Handler): HttpServer {
  return createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req.method ?? 'GET', req.headers, Buffer.concat(chunks).toString('utf8'), res));
  });
}

const STATUS_TEXT: Readonly<Record<number, string>> = { 200: 'OK', 202: 'Accepted', 400: 'Bad Request', 404: 'Not Found', 405: 'Method Not Allowed' };
const HEAD_END = Buffer.from('\r\n\r\n');

function rawServer(handle: Handler): NetServer {
  return createNetServer((socket) => {
    socket.setNoDelay(true);
    let pending: Buffer = Buffer.alloc(0);
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      for (;;) {
        const headEnd = pending.indexOf(HEAD_END);
        if (headEnd === -1) return;
        const request = readHead(pending.toString('latin1', 0, headEnd));
        if (request === undefined) return void socket.destroy();
        const bodyStart = headEnd + HEAD_END.length;
        if (pending.length < bodyStart + request.length) return;
        const body = pending.toString('utf8', bodyStart, bodyStart + request.length);
        pending = pending.subarray(bodyStart + request.length);
        handle(request.method, request.headers, body, replyOn(socket));
      }
    });
  });
}

/** The request line and headers, or undefined for anything the bench's load does not send. */
function readHead(head: string): { method: string; headers: IncomingHttpHeaders; length: number } | undefined {
  const lines = head.split('\r\n');
  const [method, , version] = lines[0]!.split(' ');
  if (method === undefined || version !== 'HTTP/1.1') return undefined;
  const headers: Record<string, string> = {};
  for (let index = 1; index < lines.length; index += 1) {
    const line = lines[index]!;
    const colon = line.indexOf(':');
    if (colon <= 0) return undefined;
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  if (headers['transfer-encoding'] !== undefined) return undefined;
  const length = Number(headers['content-length'] ?? '0');
  if (!Number.isSafeInteger(length) || length < 0) return undefined;
  return { method, headers, length };
}

/** Writes one response, head and body in one write, as node:http does. */
function replyOn(socket: Socket): Reply {
  return {
    writeHead(status, headers = {}) {
      return {
        end(text = '') {
          let head = `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Status'}\r\n`;
          for (const [name, value] of Object.entries(headers)) if (name !== 'content-length') head += `${name}: ${value}\r\n`;
          head += `content-length: ${Buffer.byteLength(text)}\r\nDate: ${new Date().toUTCString()}\r\nConnection: keep-alive\r\n\r\n`;
          socket.write(head + text);
        },
      };
    },
  };
}

// How the stdio transport cuts a server's stdout into messages: a real child process writes lines
// split across writes, several in one write, CRLF endings, blank lines and a stray non-JSON line;
// and how it writes: the messages of one turn as whole lines, in order, and before close ends stdin.
import { describe, expect, it } from 'vitest';
import { LeanStdioTransport } from '../../src/upstream/stdio-transport.js';

/** A server that writes `writes` to stdout, one write each, with a pause between so they arrive as separate chunks. */
function writer(writes: readonly string[]): LeanStdioTransport {
  const script = `
    const writes = ${JSON.stringify(writes)};
    let i = 0;
    const next = () => { if (i < writes.length) { process.stdout.write(writes[i++]); setTimeout(next, 20); } else setTimeout(() => process.exit(0), 50); };
    next();`;
  return new LeanStdioTransport({ command: process.execPath, args: ['-e', script], env: {}, stderr: 'ignore' });
}

async function readAll(transport: LeanStdioTransport): Promise<{ messages: unknown[]; errors: string[] }> {
  const messages: unknown[] = [];
  const errors: string[] = [];
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
  });
  transport.onmessage = (message) => messages.push(message);
  transport.onerror = (error) => errors.push(error.message);
  await transport.start();
  await closed;
  return { messages, errors };
}

const message = (id: number) => ({ jsonrpc: '2.0', id, result: { n: id } });
const line = (id: number) => JSON.stringify(message(id));

describe('the stdio transport reads lines', () => {
  it('whole, split across chunks, several to a chunk, with CRLF and blank lines', async () => {
    const first = line(1);
    const { messages, errors } = await readAll(
      writer([
        first.slice(0, 10),
        `${first.slice(10)}\n`,
        `${line(2)}\n${line(3)}\r\n\n   \n${line(4)}`,
        '\r\n',
        `  ${line(5)}  \n`,
      ]),
    );
    expect(errors).toEqual([]);
    expect(messages).toEqual([message(1), message(2), message(3), message(4), message(5)]);
  });

  it('reports a line that is not JSON, and goes on with the next', async () => {
    const { messages, errors } = await readAll(writer([`debug: starting\n${line(1)}\n`, '[1,2]\n', `${line(2)}\n`]));
    expect(errors).toEqual(['the server wrote a line that is not JSON: debug: starting', 'the server wrote JSON that is not a JSON-RPC 2.0 message']);
    expect(messages).toEqual([message(1), message(2)]);
  });
});

/** A server that answers every line its stdin gets with `result.line`: that line, whole, as it arrived. */
function echoer(): LeanStdioTransport {
  const script = `
    let pending = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk) => {
      pending += chunk;
      const lines = pending.split('\\n');
      pending = lines.pop();
      for (const text of lines) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(text).id, result: { line: text } }) + '\\n');
    });`;
  return new LeanStdioTransport({ command: process.execPath, args: ['-e', script], env: {}, stderr: 'ignore' });
}

describe('the stdio transport writes lines', () => {
  it('sends the messages of one turn as whole lines, in order', async () => {
    const transport = echoer();
    const answers: { id: number; result: { line: string } }[] = [];
    // Also settled when the server exits (a line it could not parse), so a bad write fails fast.
    const allIn = new Promise<void>((resolve) => {
      transport.onclose = resolve;
      transport.onmessage = (message) => {
        answers.push(message as unknown as (typeof answers)[number]);
        if (answers.length === 3) resolve();
      };
    });
    await transport.start();
    await Promise.all([1, 2, 3].map((id) => transport.send({ jsonrpc: '2.0', id, method: 'ping' })));
    await allIn;
    expect(answers.map((answer) => JSON.parse(answer.result.line))).toEqual([1, 2, 3].map((id) => ({ jsonrpc: '2.0', id, method: 'ping' })));
    await transport.close();
  });

  it('writes what was sent in the turn of close before ending stdin', async () => {
    const transport = echoer();
    const answers: unknown[] = [];
    transport.onmessage = (message) => answers.push(message);
    const closed = new Promise<void>((resolve) => {
      transport.onclose = resolve;
    });
    await transport.start();
    void transport.send({ jsonrpc: '2.0', id: 7, method: 'ping' });
    await transport.close();
    await closed;
    expect(answers).toEqual([{ jsonrpc: '2.0', id: 7, result: { line: '{"jsonrpc":"2.0","id":7,"method":"ping"}' } }]);
  });
});

// Results of a prefixed server have their URIs made readable through the gateway (rewrite-uris.ts),
// copy on write: a result with nothing to rewrite is handed back as it is, so that it keeps the
// text it came in (result-text.ts); one with links is a copy, and the upstream's result is untouched.
import { describe, expect, it } from 'vitest';
import { exposeContentUris, exposePromptUris, exposeReadUris } from '../../src/gateway/catalogue/rewrite-uris.js';

const text = { type: 'text', text: 'hello' };
const link = { type: 'resource_link', uri: 'file:///notes/a.md', name: 'a' };

describe('rewriting a result\'s URIs', () => {
  it('hands back a result with nothing to rewrite as it is', () => {
    const call = { content: [text, { type: 'image', data: 'AA==', mimeType: 'image/png' }] };
    expect(exposeContentUris(call, 'notes')).toBe(call);
    const prompt = { messages: [{ role: 'user', content: text }, { role: 'assistant', content: [text] }] };
    expect(exposePromptUris(prompt, 'notes')).toBe(prompt);
    // An embedded resource without a URI has nothing to rewrite either.
    const embedded = { content: [{ type: 'resource', resource: { text: 'no uri' } }] };
    expect(exposeContentUris(embedded, 'notes')).toBe(embedded);
    const read = { contents: [{ text: 'no uri here' }] };
    expect(exposeReadUris(read, 'notes')).toBe(read);
  });

  it('copies a result with links, rewriting them and keeping every other block and message as it was', () => {
    const call = Object.freeze({ content: Object.freeze([text, link, text]) });
    const exposed = exposeContentUris(call, 'notes');
    expect(exposed).not.toBe(call);
    expect(exposed.content).toEqual([text, { ...link, uri: 'file+notes:///notes/a.md' }, text]);
    expect((exposed.content as unknown[])[0]).toBe(text);
    expect(call.content[1]).toBe(link);

    const first = { role: 'user', content: text };
    const prompt = { messages: [first, { role: 'assistant', content: [text, { type: 'resource', resource: { uri: 'file:///b', text: 'b' } }] }] };
    const exposedPrompt = exposePromptUris(prompt, 'notes');
    expect((exposedPrompt.messages as unknown[])[0]).toBe(first);
    expect((exposedPrompt.messages as { content: unknown[] }[])[1]!.content[1]).toEqual({ type: 'resource', resource: { uri: 'file+notes:///b', text: 'b' } });

    const read = { contents: [{ uri: 'file:///c', text: 'c' }] };
    expect(exposeReadUris(read, 'notes').contents).toEqual([{ uri: 'file+notes:///c', text: 'c' }]);
    expect(read.contents[0]!.uri).toBe('file:///c');
  });
});

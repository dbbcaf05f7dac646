// Server-Sent Events over fetch: EventSource cannot send Authorization, and
// we want to set Last-Event-ID ourselves to resume after a pause.

import { apiUrl, authHeaders, errorFrom } from './api';

export interface SseMessage {
  id: string | null;
  data: string;
}

export interface SseHandlers {
  /** The answer's headers came: the subscription is open. */
  onOpen?: () => void;
  onMessage: (message: SseMessage) => void;
  onComment?: (text: string) => void;
}

/**
 * Reads `url` as an event stream until it ends or `signal` aborts. Throws
 * ApiError if the server refuses (the 401 handler runs as for any call).
 */
export async function readSse(url: string, lastEventId: string | null, signal: AbortSignal, handlers: SseHandlers): Promise<void> {
  const headers: Record<string, string> = { Accept: 'text/event-stream', ...authHeaders() };
  if (lastEventId !== null) headers['Last-Event-ID'] = lastEventId;
  const response = await fetch(apiUrl(url), { headers, signal, cache: 'no-store' });
  if (!response.ok) throw await errorFrom(response);
  if (!response.body) return;
  handlers.onOpen?.();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new SseParser(handlers);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    parser.push(value);
  }
}

/** The line grammar of text/event-stream, fed chunks in any cut. */
export class SseParser {
  private buffer = '';
  private id: string | null = null;
  private data: string[] = [];

  constructor(private readonly handlers: SseHandlers) {}

  push(chunk: string): void {
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = this.buffer.slice(0, end);
      const width = this.buffer.startsWith('\r\n', end) ? 2 : 1;
      // A lone \r at the chunk's end may be the first half of \r\n: wait for more.
      if (width === 1 && this.buffer[end] === '\r' && end === this.buffer.length - 1) return;
      this.buffer = this.buffer.slice(end + width);
      this.line(line);
    }
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data.length > 0) this.handlers.onMessage({ id: this.id, data: this.data.join('\n') });
      this.data = [];
      return;
    }
    if (line.startsWith(':')) {
      this.handlers.onComment?.(line.slice(1).trim());
      return;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'id') this.id = value;
  }
}

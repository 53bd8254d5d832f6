/**
 * Real HTTP to an ingress on 127.0.0.1: plain requests (global fetch), admin calls with the bearer
 * token, webhook deliveries as a sender makes them, and raw node:http requests for exact control.
 */
import type { ClientRequest } from 'node:http';
import { rawHttpRequest, type RawRequest, type RawResponse } from './raw-http.request';

export interface HttpResult {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  readonly json: unknown;
}

// Test bodies are JSON objects of the app's own making: typed loosely on purpose.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface DeliveryOptions {
  /** Defaults to the fixture's secret; null sends no Authorization header. */
  readonly authorization?: string | null;
  /** Defaults to application/json; null sends none (use rawRequest for a body without one). */
  readonly contentType?: string | null;
  readonly body?: string | Buffer;
  readonly headers?: Record<string, string>;
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export class IngressHttpClient {
  /** rawRequest sockets not yet closed: destroyOpenRequests() ends them, so none keeps the server (or jest) waiting. */
  private readonly openRequests = new Set<ClientRequest>();

  constructor(
    readonly port: number,
    /** The token admin() sends unless told otherwise. */
    readonly adminToken: string,
    /** 'manual' answers a redirect as it is (fetch follows it by default). */
    private readonly redirect: 'follow' | 'manual' = 'follow',
  ) {}

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The local address of a webhook (the public URL names PUBLIC_BASE_URL, which may not be this server). */
  webhookPath(webhookId: string): string {
    return `/workflow-webhooks/${webhookId}`;
  }

  async http(method: string, path: string, init: { headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<HttpResult> {
    const response = await fetch(this.baseUrl + path, { method, headers: init.headers, body: init.body, redirect: this.redirect });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, json: parseJson(text) };
  }

  /** An admin call with the token (or `token` to override; null for none). */
  async admin(method: string, path: string, body?: unknown, token: string | null = this.adminToken): Promise<HttpResult> {
    const headers: Record<string, string> = {};
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    return this.http(method, path, { headers, body: body === undefined ? undefined : JSON.stringify(body) });
  }

  /** An admin call that must succeed with `expected`; returns the body. */
  async adminOk(method: string, path: string, body: unknown, expected: number): Promise<Json> {
    const result = await this.admin(method, path, body);
    if (result.status !== expected) {
      throw new Error(`${method} ${path} answered ${result.status} (expected ${expected}): ${result.text}`);
    }
    return result.json;
  }

  /** POSTs a delivery with fetch. Body defaults to `{"data":{"hello":"world"}}`. */
  async deliver(target: { webhookId: string; secret: string }, options: DeliveryOptions = {}): Promise<HttpResult> {
    const headers: Record<string, string> = { ...options.headers };
    const authorization = options.authorization === undefined ? `Bearer ${target.secret}` : options.authorization;
    if (authorization !== null) headers.authorization = authorization;
    const contentType = options.contentType === undefined ? 'application/json' : options.contentType;
    if (contentType !== null) headers['content-type'] = contentType;
    const body = options.body ?? JSON.stringify({ data: { hello: 'world' } });
    return this.http('POST', this.webhookPath(target.webhookId), { headers, body });
  }

  /** See rawHttpRequest: exact headers, chunks, an unfinished body; bounded, never left open. */
  rawRequest(...request: RawRequest): Promise<RawResponse & { written: number }> {
    return rawHttpRequest(this.port, this.openRequests, ...request);
  }

  /** Ends every raw request still open (before the server closes). */
  protected destroyOpenRequests(): void {
    for (const request of this.openRequests) request.destroy();
  }
}

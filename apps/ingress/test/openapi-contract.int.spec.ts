/**
 * Keeps docs/openapi.json honest against the running ingress:
 * - every route Fastify registered (method + path, `:camelParam` ↔ `{snake_param}`) is documented,
 *   and every documented operation is a registered route;
 * - the Problem schema's `code` enum is exactly the codes of STATUS_BY_CODE, and every problem
 *   response lists only codes whose status is that response's status;
 * - real answers (status, content type, required headers, body) match the documented responses,
 *   with response objects treated as closed: a field the server sends must be documented;
 * - every documented operation is exercised at least once;
 * - every admin operation accepts the three admin credentials, and names the role it needs
 *   (`x-required-role`, its description, its 403's `required_role`) exactly as its route declares
 *   it with @Access.
 *
 * The document is JSON (no YAML parser is a dependency): it is the source of truth, not generated.
 */
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { STATUS_BY_CODE, WEBHOOK_NOT_FOUND_BODY } from '../src/http/problem';
import type { RequiredAccess } from '../src/access/admin-access.config';
import { declaredRoutes } from '../../../test/support/admin-routes.kit';
import { eventually } from '@wts/testing';
import { IngressTestApp, TEST_ADMIN_TOKEN, type TestAccess } from '../../../test/support/ingress-test-app';
import { startOidcProvider, type RunningOidcProvider } from '../../../test/support/oidc-provider.harness';
import { adminAccessTokens } from '../../../test/support/oidc-provider.kit';
import type { WebhookFixture } from '../../../test/support/ingress-admin.client';
import type { HttpResult, Json } from '../../../test/support/ingress-http.client';

// ------------------------------------------------------------------ the document

interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  example?: unknown;
}

interface Parameter {
  $ref?: string;
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
}

interface HeaderObject {
  $ref?: string;
  required?: boolean;
  schema?: Schema;
}

interface MediaType {
  schema?: Schema;
  example?: unknown;
  /** Named examples (OpenAPI's alternative to `example`): each `value` is checked like `example`. */
  examples?: Record<string, { summary?: string; value?: unknown }>;
}

interface ResponseObject {
  $ref?: string;
  description: string;
  headers?: Record<string, HeaderObject>;
  content?: Record<string, MediaType>;
}

interface Operation {
  operationId: string;
  description?: string;
  /** The role the operation needs (admin API only): what its route declares with @Access. */
  'x-required-role'?: RequiredAccess;
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, ResponseObject>;
}

interface SecurityScheme {
  type: 'http' | 'apiKey' | 'oauth2' | 'openIdConnect' | 'mutualTLS';
  scheme?: string;
  bearerFormat?: string;
  openIdConnectUrl?: string;
  description?: string;
}

type PathItem = Record<string, Operation> & { 'x-registered-route'?: string };

interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  paths: Record<string, PathItem>;
  components: {
    schemas: Record<string, Schema>;
    securitySchemes: Record<string, SecurityScheme>;
  };
}

const DOCUMENT_PATH = join(__dirname, '..', '..', '..', 'docs', 'openapi.json');
const doc = JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8')) as OpenApiDocument;
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const PROBLEM_JSON = 'application/problem+json';

/** Every admin operation accepts any of the three admin credentials. */
const ADMIN_SECURITY = [{ oidc: [] }, { apiKey: [] }, { bootstrapToken: [] }];
/** How an admin operation's description names the role it needs. */
const ROLE_SENTENCE: Record<RequiredAccess, string> = {
  signed_in: 'Any valid admin credential, with or without a role.',
  viewer: 'Needs the role `viewer` (any role).',
  operator: 'Needs the role `operator` or `admin`.',
  admin: 'Needs the role `admin`.',
};

/** Follows a local JSON pointer (`#/components/...`). */
function pointer(ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`only local $refs are used: ${ref}`);
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null || !(key in node)) throw new Error(`unresolved $ref ${ref}`);
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function deref<T extends { $ref?: string }>(value: T): T {
  return value.$ref === undefined ? value : deref(pointer(value.$ref) as T);
}

/** Every operation of the document, keyed "METHOD /path". */
function documentedOperations(): Map<string, { path: string; method: string; operation: Operation; item: PathItem }> {
  const operations = new Map<string, { path: string; method: string; operation: Operation; item: PathItem }>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (operation) operations.set(`${method.toUpperCase()} ${path}`, { path, method, operation, item });
    }
  }
  return operations;
}

// ------------------------------------------------------------------ a small JSON Schema checker

/** Merges `$ref` and `allOf` into one schema (properties merged, required united, enums intersected). */
function flatten(schema: Schema): Schema {
  let result: Schema = {};
  if (schema.$ref !== undefined) result = merge(result, flatten(pointer(schema.$ref) as Schema));
  for (const part of schema.allOf ?? []) result = merge(result, flatten(part));
  const own: Schema = { ...schema };
  delete own.$ref;
  delete own.allOf;
  return merge(result, own);
}

function merge(a: Schema, b: Schema): Schema {
  const out: Schema = { ...a, ...b };
  if (a.properties && b.properties) {
    out.properties = { ...a.properties };
    for (const [name, schema] of Object.entries(b.properties)) {
      const existing = a.properties[name];
      out.properties[name] = existing ? { allOf: [existing, schema] } : schema;
    }
  }
  if (a.required || b.required) out.required = [...new Set([...(a.required ?? []), ...(b.required ?? [])])];
  if (a.enum && b.enum) {
    const narrower = b.enum;
    out.enum = a.enum.filter((value) => narrower.includes(value));
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasType(type: string, value: unknown): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    default:
      return typeof value === type;
  }
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Validates `value` against `schema`: type, const, enum, string/number/array bounds, pattern,
 * date-time, required, properties, items, anyOf/oneOf. Objects whose schema lists properties
 * and says nothing about additionalProperties are closed: every member must be documented.
 */
function validate(schema: Schema, value: unknown, at = '$'): string[] {
  const s = flatten(schema);
  const errors: string[] = [];
  if (s.anyOf && !s.anyOf.some((branch) => validate(branch, value, at).length === 0)) errors.push(`${at}: matches no anyOf branch`);
  if (s.oneOf && s.oneOf.filter((branch) => validate(branch, value, at).length === 0).length !== 1)
    errors.push(`${at}: does not match exactly one oneOf branch`);
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (!types.some((type) => hasType(type, value)))
      return [...errors, `${at}: ${JSON.stringify(value)} is not of type ${types.join('|')}`];
  }
  if (s.const !== undefined && JSON.stringify(s.const) !== JSON.stringify(value))
    errors.push(`${at}: ${JSON.stringify(value)} is not ${JSON.stringify(s.const)}`);
  if (s.enum && !s.enum.some((option) => JSON.stringify(option) === JSON.stringify(value)))
    errors.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(s.enum)}`);
  if (typeof value === 'string') {
    if (s.pattern !== undefined && !new RegExp(s.pattern, 'u').test(value)) errors.push(`${at}: "${value}" does not match /${s.pattern}/`);
    if (s.minLength !== undefined && [...value].length < s.minLength) errors.push(`${at}: shorter than ${s.minLength}`);
    if (s.maxLength !== undefined && [...value].length > s.maxLength) errors.push(`${at}: longer than ${s.maxLength}`);
    if (s.format === 'date-time' && (!ISO_DATE_TIME.test(value) || Number.isNaN(Date.parse(value))))
      errors.push(`${at}: "${value}" is not a date-time`);
  }
  if (typeof value === 'number') {
    if (s.minimum !== undefined && value < s.minimum) errors.push(`${at}: ${value} < ${s.minimum}`);
    if (s.maximum !== undefined && value > s.maximum) errors.push(`${at}: ${value} > ${s.maximum}`);
  }
  if (Array.isArray(value)) {
    if (s.minItems !== undefined && value.length < s.minItems) errors.push(`${at}: fewer than ${s.minItems} items`);
    if (s.maxItems !== undefined && value.length > s.maxItems) errors.push(`${at}: more than ${s.maxItems} items`);
    if (s.items) value.forEach((item, index) => errors.push(...validate(s.items as Schema, item, `${at}[${index}]`)));
  }
  if (isObject(value)) {
    for (const name of s.required ?? []) if (!(name in value)) errors.push(`${at}: required member "${name}" is missing`);
    for (const [name, member] of Object.entries(value)) {
      const declared = s.properties?.[name];
      if (declared) errors.push(...validate(declared, member, `${at}.${name}`));
      else if (isObject(s.additionalProperties)) errors.push(...validate(s.additionalProperties, member, `${at}.${name}`));
      else if (s.additionalProperties === false || (s.additionalProperties === undefined && s.properties !== undefined)) {
        errors.push(`${at}: member "${name}" is not documented`);
      }
    }
  }
  return errors;
}

// ------------------------------------------------------------------ registered routes

interface RegisteredRoute {
  readonly method: string;
  readonly url: string;
}

/** `/admin/runs/:runId` → `/admin/runs/{run_id}` (the document's parameters are snake_case). */
function toDocumentedPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, (_match, name: string) => `{${name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}}`);
}

/** The registered route a documented path stands for (`x-registered-route` for wildcards). */
function registeredPathOf(path: string, item: PathItem): string {
  return item['x-registered-route'] ?? path;
}

/**
 * Starts the app with an `onRoute` hook on the Fastify instance, added the moment Nest's
 * FastifyAdapter receives it, before any route exists; so the list is exactly what Fastify
 * registered (including HEAD routes it derives from GET).
 */
async function startRecordingRoutes(
  env: Record<string, string>,
  access: TestAccess,
): Promise<{ app: IngressTestApp; routes: RegisteredRoute[] }> {
  const routes: RegisteredRoute[] = [];
  const setInstance = FastifyAdapter.prototype.setInstance;
  const spy = jest.spyOn(FastifyAdapter.prototype, 'setInstance').mockImplementation(function (this: FastifyAdapter, instance: unknown) {
    (instance as FastifyInstance).addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) routes.push({ method: method.toUpperCase(), url: route.url });
    });
    setInstance.call(this, instance);
  });
  try {
    return { app: await IngressTestApp.start(env, undefined, undefined, access), routes };
  } finally {
    spy.mockRestore();
  }
}

// ------------------------------------------------------------------ answers against the document

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: unknown;
}

function toHeaders(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    for (const item of [value ?? []].flat()) headers.append(name, item);
  }
  return headers;
}

const exercised = new Set<string>();

/**
 * Asserts that `answer` is a documented response of `METHOD path`: its status is listed, its
 * media type is one of the response's, its required headers are present and valid, and its JSON
 * body validates against the schema. Returns the parsed body.
 */
function expectDocumented(answer: Answer, method: string, path: string): Json {
  const operation = doc.paths[path]?.[method.toLowerCase()];
  if (!operation) throw new Error(`${method} ${path} is not documented`);
  const declared = operation.responses[String(answer.status)];
  if (!declared) throw new Error(`${method} ${path} answered ${answer.status}, which is not documented: ${answer.text.slice(0, 300)}`);
  const response = deref(declared);
  const problems: string[] = [];
  for (const [name, header] of Object.entries(response.headers ?? {})) {
    const definition = deref(header);
    const value = answer.headers.get(name);
    if (value === null) {
      if (definition.required) problems.push(`header ${name} is documented as required but absent`);
      continue;
    }
    if (definition.schema) problems.push(...validate(definition.schema, value, `header ${name}`));
  }
  const mediaType = (answer.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (response.content === undefined) {
    if (answer.text !== '') problems.push(`a body was sent (${mediaType}) where none is documented`);
  } else {
    const media = response.content[mediaType];
    if (!media) problems.push(`content type "${mediaType}" is not one of ${Object.keys(response.content).join(', ')}`);
    else if (mediaType.endsWith('json')) {
      if (answer.json === undefined) problems.push('the body is not JSON');
      else if (media.schema) problems.push(...validate(media.schema, answer.json));
    }
  }
  if (problems.length > 0)
    throw new Error(
      `${method} ${path} → ${answer.status} differs from docs/openapi.json:\n  ${problems.join('\n  ')}\n  body: ${answer.text.slice(0, 500)}`,
    );
  exercised.add(`${method.toUpperCase()} ${path}`);
  return answer.json as Json;
}

// ------------------------------------------------------------------ the tests

describe('docs/openapi.json', () => {
  describe('the document itself', () => {
    it('is OpenAPI 3.1 with the webhook secret and the three admin credentials as security schemes', () => {
      expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
      expect(doc.info.title).toBeTruthy();
      const schemes = doc.components.securitySchemes;
      expect(Object.keys(schemes).sort()).toEqual(['apiKey', 'bootstrapToken', 'oidc', 'webhookSecret']);
      expect(schemes.webhookSecret).toMatchObject({ type: 'http', scheme: 'bearer' });
      expect(schemes.oidc).toMatchObject({
        type: 'openIdConnect',
        openIdConnectUrl: expect.stringMatching(/^https:\/\/.+\/\.well-known\/openid-configuration$/),
      });
      expect(schemes.oidc?.description).toContain('{OIDC_ISSUER}/.well-known/openid-configuration');
      expect(schemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: expect.stringMatching(/^wtk_/) });
      expect(schemes.bootstrapToken).toMatchObject({ type: 'http', scheme: 'bearer' });
      expect(schemes.bootstrapToken?.description).toContain('ADMIN_TOKEN=off');
    });

    it('resolves every $ref', () => {
      const unresolved: string[] = [];
      const walk = (node: unknown): void => {
        if (Array.isArray(node)) node.forEach(walk);
        else if (isObject(node)) {
          if (typeof node.$ref === 'string') {
            try {
              pointer(node.$ref);
            } catch (error) {
              unresolved.push(String(error));
            }
          }
          Object.values(node).forEach(walk);
        }
      };
      walk(doc);
      expect(unresolved).toEqual([]);
    });

    it('has unique operation ids, declares every path template parameter, and guards admin routes with the admin credentials and their role', () => {
      const ids = new Set<string>();
      for (const [key, { path, operation }] of documentedOperations()) {
        expect({ key, duplicate: ids.has(operation.operationId) }).toEqual({ key, duplicate: false });
        ids.add(operation.operationId);
        const declared = (operation.parameters ?? [])
          .map(deref)
          .filter((p) => p.in === 'path')
          .map((p) => p.name)
          .sort();
        const template = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]).sort();
        expect({ key, parameters: declared }).toEqual({ key, parameters: template });
        if (path.startsWith('/admin/')) {
          expect({ key, security: operation.security }).toEqual({ key, security: ADMIN_SECURITY });
          const unauthorized = deref(operation.responses['401'] ?? ({} as ResponseObject));
          expect({ key, challenge: Boolean(unauthorized.headers?.['WWW-Authenticate']) }).toEqual({ key, challenge: true });
          expectRoleDocumented(key, operation);
        } else if (path.startsWith('/workflow-webhooks/')) {
          expect(operation.security).toEqual([{ webhookSecret: [] }]);
        } else {
          expect({ key, security: operation.security }).toEqual({ key, security: [] });
        }
      }
    });

    /**
     * The role an admin operation needs is said three ways that must agree: `x-required-role`, a
     * sentence of its description, and its 403's `required_role` (no 403 where any credential will do).
     * Every admin operation may answer 503 for the store (an API key is checked there) and for
     * the identity provider (an access token whose key is not cached).
     */
    function expectRoleDocumented(key: string, operation: Operation): void {
      const role = operation['x-required-role'];
      expect({ key, role: role !== undefined && role in ROLE_SENTENCE }).toEqual({ key, role: true });
      if (role === undefined) return;
      expect({ key, description: operation.description?.includes(ROLE_SENTENCE[role]) }).toEqual({ key, description: true });
      const forbidden = operation.responses['403'];
      if (role === 'signed_in') expect({ key, forbidden }).toEqual({ key, forbidden: undefined });
      else {
        const problem = flatten(deref(forbidden ?? ({} as ResponseObject)).content?.[PROBLEM_JSON]?.schema ?? {});
        expect({
          key,
          codes: flatten(problem.properties?.code ?? {}).enum,
          required_role: flatten(problem.properties?.required_role ?? {}).const,
        }).toEqual({ key, codes: ['insufficient_role'], required_role: role });
        expect({ key, required: problem.required }).toEqual({ key, required: expect.arrayContaining(['required_role']) });
      }
      const unavailable = flatten(deref(operation.responses['503'] ?? ({} as ResponseObject)).content?.[PROBLEM_JSON]?.schema ?? {});
      expect({ key, codes: flatten(unavailable.properties?.code ?? {}).enum }).toEqual({
        key,
        codes: expect.arrayContaining(['store_unavailable', 'identity_provider_unavailable']),
      });
    }

    it('lists exactly the problem codes of STATUS_BY_CODE in the Problem schema', () => {
      const problem = flatten(doc.components.schemas.Problem as Schema);
      expect(problem.required).toEqual(expect.arrayContaining(['type', 'title', 'status', 'code']));
      for (const field of ['type', 'title', 'status', 'code', 'detail', 'errors']) expect(problem.properties).toHaveProperty(field);
      const codes = flatten(problem.properties?.code as Schema).enum;
      expect([...(codes ?? [])].sort()).toEqual(Object.keys(STATUS_BY_CODE).sort());
    });

    it('gives every problem response only codes of its own status, and documents every code an operation can answer', () => {
      const used = new Set<string>();
      for (const [key, { operation }] of documentedOperations()) {
        for (const [status, declared] of Object.entries(operation.responses)) {
          const media = deref(declared).content?.[PROBLEM_JSON];
          if (!media?.schema) continue;
          const codes = flatten(flatten(media.schema).properties?.code as Schema).enum ?? [];
          expect({ key, status, narrowed: codes.length < Object.keys(STATUS_BY_CODE).length }).toEqual({ key, status, narrowed: true });
          for (const code of codes) {
            used.add(String(code));
            expect({ key, code, status: STATUS_BY_CODE[code as keyof typeof STATUS_BY_CODE] }).toEqual({
              key,
              code,
              status: Number(status),
            });
          }
        }
      }
      // Not tied to one operation: the catch-all answers of the framework.
      const generic = ['internal_error', 'method_not_allowed'];
      expect(Object.keys(STATUS_BY_CODE).filter((code) => !used.has(code) && !generic.includes(code))).toEqual([]);
    });

    it('has examples that validate against their schemas', () => {
      const failures: string[] = [];
      const check = (where: string, schema: Schema | undefined, example: unknown): void => {
        if (schema !== undefined && example !== undefined) failures.push(...validate(schema, example).map((e) => `${where}: ${e}`));
      };
      for (const [name, schema] of Object.entries(doc.components.schemas)) check(`schema ${name}`, schema, schema.example);
      const checkMedia = (where: string, media: MediaType): void => {
        check(where, media.schema, media.example);
        for (const [name, example] of Object.entries(media.examples ?? {})) check(`${where} example ${name}`, media.schema, example.value);
      };
      for (const [key, { operation }] of documentedOperations()) {
        for (const [mediaType, media] of Object.entries(operation.requestBody?.content ?? {}))
          checkMedia(`${key} request ${mediaType}`, media);
        for (const [status, declared] of Object.entries(operation.responses)) {
          for (const [mediaType, media] of Object.entries(deref(declared).content ?? {}))
            checkMedia(`${key} ${status} ${mediaType}`, media);
        }
      }
      expect(failures).toEqual([]);
    });

    it('shows the one webhook 404 byte for byte', () => {
      const media = deref(doc.paths['/workflow-webhooks/{webhook_id}']?.post?.responses['404'] as ResponseObject).content?.[PROBLEM_JSON];
      expect(JSON.stringify(media?.example)).toBe(WEBHOOK_NOT_FOUND_BODY);
    });
  });

  describe('against the running ingress', () => {
    let t: IngressTestApp;
    let routes: RegisteredRoute[];

    /** A real OpenID provider (oidc-provider): the `oidc` scheme's answers are exercised against it. */
    let provider: RunningOidcProvider;
    const signIn = (issuer: string, audience: string) => ({
      issuer,
      client_id: 'wts-config-page',
      audience,
      scope: 'openid email profile',
    });

    beforeAll(async () => {
      provider = await startOidcProvider();
      const accessTokens = adminAccessTokens(provider);
      ({ app: t, routes } = await startRecordingRoutes(
        { WEBHOOK_RATE_LIMIT_PER_MINUTE: '5', WEBHOOK_MAX_PAYLOAD_BYTES: '1024' },
        { accessTokens, signIn: signIn(provider.issuer, provider.audience) },
      ));
    }, 30_000);

    afterAll(async () => {
      await t?.close();
      await provider?.stop();
    });

    const registeredKeys = (): Set<string> => {
      const gets = new Set(routes.filter((route) => route.method === 'GET').map((route) => route.url));
      // HEAD is derived from GET by Fastify (documented once, in the API description).
      return new Set(
        routes.filter((route) => !(route.method === 'HEAD' && gets.has(route.url))).map((route) => `${route.method} ${route.url}`),
      );
    };

    it('recorded the routes Fastify registered (the hook is live)', () => {
      const fastify = t.app.getHttpAdapter().getInstance() as FastifyInstance;
      expect(routes).toContainEqual({ method: 'POST', url: '/workflow-webhooks/:webhookId' });
      for (const route of routes)
        expect({ route, known: fastify.hasRoute({ method: route.method as 'GET', url: route.url }) }).toEqual({ route, known: true });
    });

    it('documents every registered route', () => {
      const documented = new Set(
        [...documentedOperations().values()].map(({ method, path, item }) => `${method.toUpperCase()} ${registeredPathOf(path, item)}`),
      );
      const undocumented = [...registeredKeys()].filter((key) => {
        const [method, url] = key.split(' ') as [string, string];
        return !documented.has(`${method} ${url}`) && !documented.has(`${method} ${toDocumentedPath(url)}`);
      });
      expect(undocumented).toEqual([]);
    });

    it('names on every admin operation the role its route declares with @Access', () => {
      const declared = Object.fromEntries(
        declaredRoutes(t.app)
          .filter((route) => route.path.startsWith('/admin/'))
          .map((route) => [`${route.method} ${toDocumentedPath(route.path)}`, route.access?.role ?? 'none declared']),
      );
      const documented = Object.fromEntries(
        [...documentedOperations().entries()]
          .filter(([, { path }]) => path.startsWith('/admin/'))
          .map(([key, { operation }]) => [key, operation['x-required-role'] ?? 'none documented']),
      );
      expect(Object.keys(declared).length).toBeGreaterThan(20);
      expect(documented).toEqual(declared);
    });

    it('registers every documented operation', () => {
      const registered = new Set(
        [...registeredKeys()].map((key) => {
          const [method, url] = key.split(' ') as [string, string];
          return `${method} ${url.includes('*') ? url : toDocumentedPath(url)}`;
        }),
      );
      const missing = [...documentedOperations().values()]
        .map(({ method, path, item }) => `${method.toUpperCase()} ${registeredPathOf(path, item)}`)
        .filter((key) => !registered.has(key));
      expect(missing).toEqual([]);
    });

    describe('answers match the documented responses', () => {
      const WEBHOOK = '/workflow-webhooks/{webhook_id}';
      let account: Json;
      let routineId: string;
      let hook: WebhookFixture;
      let accepted: Json;
      /** API keys issued with the bootstrap token, one per role. */
      const keys: Record<string, { id: string; key: string }> = {};

      const admin = async (method: string, url: string, docPath: string, body?: unknown, token?: string | null): Promise<Json> =>
        expectDocumented(await t.admin(method, url, body, token), method, docPath);

      it('health: /health/live, /health/ready and their aliases /healthz, /readyz; metrics', async () => {
        const live = { status: 'ok', info: {}, error: {}, details: {} };
        expect(expectDocumented(await t.http('GET', '/health/live'), 'GET', '/health/live')).toEqual(live);
        expect(expectDocumented(await t.http('GET', '/healthz'), 'GET', '/healthz')).toEqual(live);
        const ready = {
          status: 'ok',
          info: { event_store: { status: 'up' }, read_models: { status: 'up' } },
          error: {},
          details: { event_store: { status: 'up' }, read_models: { status: 'up' } },
        };
        expect(expectDocumented(await t.http('GET', '/health/ready'), 'GET', '/health/ready')).toEqual(ready);
        expect(expectDocumented(await t.http('GET', '/readyz'), 'GET', '/readyz')).toEqual(ready);
        const scrape = await t.http('GET', '/metrics');
        expectDocumented(scrape, 'GET', '/metrics');
        expect(scrape.text).toContain('# TYPE wts_deliveries_accepted_total counter');
      });

      it('accounts: 401 with WWW-Authenticate, 201, 200, 400, 404, 409, 415', async () => {
        const unauthorized = await t.admin('GET', '/admin/accounts', undefined, null);
        expect(unauthorized.status).toBe(401);
        expectDocumented(unauthorized, 'GET', '/admin/accounts');

        account = await admin('POST', '/admin/accounts', '/admin/accounts', { email: 'owner@example.com', aliases: ['alias@example.com'] });
        expect(account.primary).toBe(true);
        const other = await admin('POST', '/admin/accounts', '/admin/accounts', { email: 'other@example.com', primary: false });
        expect((await admin('GET', '/admin/accounts', '/admin/accounts')).accounts).toHaveLength(2);
        expect(
          (await admin('PATCH', `/admin/accounts/${other.id}`, '/admin/accounts/{id}', { aliases: ['second@example.com'] })).aliases,
        ).toEqual(['second@example.com']);
        expect((await admin('PATCH', `/admin/accounts/${other.id}`, '/admin/accounts/{id}')).aliases).toEqual(['second@example.com']); // no body: no change

        expect((await admin('POST', '/admin/accounts', '/admin/accounts', { email: 'not an address' })).code).toBe('validation_failed');
        expect((await admin('POST', '/admin/accounts', '/admin/accounts', { email: 'x@example.com', extra: 1 })).code).toBe(
          'validation_failed',
        );
        expect((await admin('POST', '/admin/accounts', '/admin/accounts', { email: 'OWNER@example.com' })).code).toBe(
          'email_already_connected',
        );
        expect((await admin('PATCH', '/admin/accounts/acc_AAAAAAAAAAAAAAAAAAAAAA', '/admin/accounts/{id}', { active: true })).code).toBe(
          'unknown_account',
        );
        const notJson = await t.http('POST', '/admin/accounts', {
          headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'text/plain' },
          body: 'x',
        });
        expect(expectDocumented(notJson, 'POST', '/admin/accounts').code).toBe('unsupported_media_type');
      });

      it('routines: 201, 200, list, 404', async () => {
        const created = await admin('POST', '/admin/routines', '/admin/routines', {
          name: 'Contract',
          instructions: 'Summarise.',
          tools: [{ name: 'search', sends_externally: false }],
          mode: 'supervised',
          account_scope: [account.id],
        });
        routineId = created.id;
        await admin('GET', `/admin/routines/${routineId}`, '/admin/routines/{id}');
        expect((await admin('PATCH', `/admin/routines/${routineId}`, '/admin/routines/{id}', { name: 'Contract v2' })).name).toBe(
          'Contract v2',
        );
        expect((await admin('PATCH', `/admin/routines/${routineId}`, '/admin/routines/{id}')).name).toBe('Contract v2'); // no body: no change
        const list = await admin('GET', '/admin/routines', '/admin/routines');
        expect(list.routines[0]).toMatchObject({ id: routineId, webhook_state: 'not_configured', webhook_blocked: false });
        expect((await admin('GET', '/admin/routines/rtn_AAAAAAAAAAAAAAAAAAAAAA', '/admin/routines/{id}')).code).toBe('routine_not_found');
        expect(
          (
            await admin('POST', '/admin/routines', '/admin/routines', {
              name: 'x',
              instructions: '',
              tools: [],
              mode: 'supervised',
              account_scope: ['acc_AAAAAAAAAAAAAAAAAAAAAA'],
            })
          ).code,
        ).toBe('unknown_scope_account');
        expect((await admin('PATCH', '/admin/routines/rtn_AAAAAAAAAAAAAAAAAAAAAA', '/admin/routines/{id}', { name: 'y' })).code).toBe(
          'routine_not_found',
        );
      });

      it('access: who am I, an API key of each role, 403 insufficient_role with required_role, revocation', async () => {
        expect(await admin('GET', '/admin/me', '/admin/me')).toEqual({
          actor: { kind: 'bootstrap', subject: 'bootstrap', display: 'bootstrap token' },
          role: 'admin',
          roles: { viewer: true, operator: true, admin: true },
        });
        for (const role of ['viewer', 'operator', 'admin']) {
          const issued = await t.admin('POST', '/admin/api-keys', { name: `contract ${role}`, role }, TEST_ADMIN_TOKEN);
          expect(issued.status).toBe(201);
          keys[role] = expectDocumented(issued, 'POST', '/admin/api-keys');
          expect(keys[role]).toMatchObject({ role, status: 'live', expires_at: null, revoked_at: null });
          expect(await admin('GET', '/admin/me', '/admin/me', undefined, keys[role].key)).toMatchObject({
            actor: { kind: 'api_key', subject: keys[role].id, display: `contract ${role}` },
            role,
          });
        }
        const viewer = keys.viewer!.key;
        const operator = keys.operator!.key;

        // Too low a role: 403 naming the role needed, whatever the body (it is not read).
        const rotate = `/admin/routines/${routineId}/webhook/rotate`;
        const denied = await admin('POST', rotate, '/admin/routines/{id}/webhook/rotate', undefined, viewer);
        expect(denied).toMatchObject({ status: 403, code: 'insufficient_role', required_role: 'operator' });
        expect(await admin('POST', '/admin/api-keys', '/admin/api-keys', { name: 'mine', role: 'admin' }, operator)).toMatchObject({
          code: 'insufficient_role',
          required_role: 'admin',
        });
        const malformed = await t.http('PATCH', `/admin/routines/${routineId}`, {
          headers: { authorization: `Bearer ${operator}`, 'content-type': 'application/json' },
          body: '{"name":',
        });
        expect(expectDocumented(malformed, 'PATCH', '/admin/routines/{id}').required_role).toBe('admin');
        expect(malformed.headers.get('connection')).toBe('close');
        expect((await admin('GET', '/admin/api-keys', '/admin/api-keys', undefined, viewer)).required_role).toBe('admin');
        // Enough: past the door to the route's own answer (no webhook yet), and the reads.
        expect((await admin('POST', rotate, '/admin/routines/{id}/webhook/rotate', undefined, operator)).code).toBe(
          'webhook_not_configured',
        );
        expect((await admin('GET', `/admin/routines/${routineId}`, '/admin/routines/{id}', undefined, viewer)).id).toBe(routineId);

        expect((await admin('POST', '/admin/api-keys', '/admin/api-keys', { name: 'x', role: 'root' })).code).toBe('validation_failed');
        const issuedByKey = await admin(
          'POST',
          '/admin/api-keys',
          '/admin/api-keys',
          { name: 'short-lived', role: 'viewer', expires_at: '2999-01-01T00:00:00Z' },
          keys.admin!.key,
        );
        const listed = await admin('GET', '/admin/api-keys', '/admin/api-keys');
        expect(listed.api_keys.map((key: Json) => key.id)).toEqual(expect.arrayContaining([keys.viewer!.id, issuedByKey.id]));
        expect(JSON.stringify(listed)).not.toContain(issuedByKey.key);

        const revoked = await t.admin('DELETE', `/admin/api-keys/${issuedByKey.id}`);
        expect(revoked.status).toBe(204);
        expectDocumented(revoked, 'DELETE', '/admin/api-keys/{id}');
        expect((await admin('GET', '/admin/me', '/admin/me', undefined, issuedByKey.key)).code).toBe('unauthorized');
        expectDocumented(await t.admin('DELETE', `/admin/api-keys/${issuedByKey.id}`), 'DELETE', '/admin/api-keys/{id}'); // again: 204
        expect((await admin('DELETE', '/admin/api-keys/key_AAAAAAAAAAAAAAAAAAAAAA', '/admin/api-keys/{id}')).code).toBe(
          'api_key_not_found',
        );
        expect((await admin('DELETE', `/admin/api-keys/${keys.viewer!.id}`, '/admin/api-keys/{id}', undefined, viewer)).code).toBe(
          'insufficient_role',
        );
        const after = await admin('GET', '/admin/api-keys', '/admin/api-keys');
        expect(after.api_keys.find((key: Json) => key.id === issuedByKey.id)).toMatchObject({
          status: 'revoked',
          revoked_at: expect.any(String),
        });
      });

      it('a person (OIDC): 503 identity_provider_unavailable while no key is cached; who am I; 403 required_role viewer without a role', async () => {
        const person = await provider.clientCredentialsToken('operator-bot');
        const noRole = await provider.clientCredentialsToken('noroles-bot');
        // No access token was checked yet: nothing is cached, and the provider is down.
        await provider.stop();
        const down = await t.admin('GET', '/admin/me', undefined, person);
        expect(expectDocumented(down, 'GET', '/admin/me').code).toBe('identity_provider_unavailable');
        expect((await admin('GET', '/admin/accounts', '/admin/accounts', undefined, person)).code).toBe('identity_provider_unavailable');
        // API keys and the bootstrap token do not need the provider.
        expect((await admin('GET', '/admin/me', '/admin/me', undefined, keys.viewer!.key)).role).toBe('viewer');
        await provider.restart();

        expect(await admin('GET', '/admin/me', '/admin/me', undefined, person)).toMatchObject({
          actor: { kind: 'oidc', subject: expect.any(String), display: expect.any(String) },
          role: 'operator',
          roles: { viewer: true, operator: true, admin: false },
        });
        expect(await admin('GET', '/admin/me', '/admin/me', undefined, noRole)).toMatchObject({
          actor: { kind: 'oidc' },
          role: null,
          roles: { viewer: false, operator: false, admin: false },
        });
        expect(await admin('GET', '/admin/accounts', '/admin/accounts', undefined, noRole)).toMatchObject({
          code: 'insufficient_role',
          required_role: 'viewer',
        });
        expect((await admin('GET', '/admin/me', '/admin/me', undefined, `${person.slice(0, -2)}AA`)).code).toBe('unauthorized');
      }, 30_000);

      it('webhook configuration: view, 409 before enable, enable with secret, 409 twice, 400; retention (PATCH)', async () => {
        expect((await admin('GET', `/admin/routines/${routineId}/webhook`, '/admin/routines/{id}/webhook')).state).toBe('not_configured');
        expect((await admin('POST', `/admin/routines/${routineId}/webhook/rotate`, '/admin/routines/{id}/webhook/rotate')).code).toBe(
          'webhook_not_configured',
        );
        expect((await admin('POST', `/admin/routines/${routineId}/webhook/disable`, '/admin/routines/{id}/webhook/disable')).code).toBe(
          'webhook_not_configured',
        );
        const change = (days: unknown): Promise<Json> =>
          admin('PATCH', `/admin/routines/${routineId}/webhook`, '/admin/routines/{id}/webhook', { payload_retention_days: days });
        expect((await change(30)).code).toBe('webhook_not_configured');
        const enablePath = `/admin/routines/${routineId}/webhook/enable`;
        expect(
          (
            await admin('POST', enablePath, '/admin/routines/{id}/webhook/enable', {
              default_account: 'nobody@example.com',
              account_override_allowed: false,
            })
          ).code,
        ).toBe('default_account_invalid');
        const enable = (verification: unknown): Promise<Json> =>
          admin('POST', enablePath, '/admin/routines/{id}/webhook/enable', {
            default_account: account.email,
            account_override_allowed: false,
            verification,
          });
        // The verification scheme: an unknown one is a validation failure; a secret that cannot be used is signing_secret_invalid.
        expect((await enable({ scheme: 'carrier_pigeon' })).code).toBe('validation_failed');
        expect((await enable({ scheme: 'bearer', secret: 'whsec_mine' })).code).toBe('signing_secret_invalid');
        expect((await enable({ scheme: 'github' })).code).toBe('signing_secret_invalid');
        expect((await admin('GET', `/admin/routines/${routineId}/webhook`, '/admin/routines/{id}/webhook')).state).toBe('not_configured');
        const enabled = await admin('POST', enablePath, '/admin/routines/{id}/webhook/enable', {
          default_account: account.email,
          account_override_allowed: false,
        });
        expect(enabled.secret).toMatch(/^whsec_/);
        expect(enabled.verification).toEqual({ scheme: 'bearer' });
        hook = { account, routineId, webhook: enabled, webhookId: enabled.webhook_id, secret: enabled.secret };
        expect(
          (
            await admin('POST', enablePath, '/admin/routines/{id}/webhook/enable', {
              default_account: account.email,
              account_override_allowed: false,
            })
          ).code,
        ).toBe('webhook_already_enabled');
        const view = await admin('GET', `/admin/routines/${routineId}/webhook`, '/admin/routines/{id}/webhook');
        expect(view).toMatchObject({ state: 'enabled', webhook_id: hook.webhookId, verification: { scheme: 'bearer' } });
        expect(view).not.toHaveProperty('secret');
        expect((await change(0)).code).toBe('validation_failed');
        expect(await change(30)).toMatchObject({ payload_retention_days: 30, payload_retention_seconds_effective: 30 * 86_400 });
        expect(await change(null)).toMatchObject({ payload_retention_days: null, filter: null, payload_schema: null });
        const webhookPath = `/admin/routines/${routineId}/webhook`;
        expect((await admin('PATCH', webhookPath, '/admin/routines/{id}/webhook', { filter: 'body.kind ==' })).code).toBe('invalid_filter');
        expect((await admin('PATCH', webhookPath, '/admin/routines/{id}/webhook', { payload_schema: { type: 'no-such-type' } })).code).toBe(
          'invalid_payload_schema',
        );
        const tryPath = '/admin/routines/{id}/webhook/rules/try';
        const trial = await admin('POST', `${webhookPath}/rules/try`, tryPath, {
          sample: '{"kind":"go"}',
          filter: 'body.kind == "go"',
          payload_schema: { type: 'array' },
        });
        expect(trial).toMatchObject({ filter: { result: 'matched' }, payload_schema: { result: 'mismatch' } });
        expect((await admin('POST', `${webhookPath}/rules/try`, tryPath, {})).code).toBe('validation_failed');
      });

      it('public endpoint: 202, idempotent replay, 422, 400, 404, 415, 413', async () => {
        const key = { 'x-service-idempotency-key': 'contract-1' };
        const first = await t.deliver(hook, { headers: key });
        accepted = expectDocumented(first, 'POST', WEBHOOK);
        expect(first.headers.get('idempotent-replayed')).toBeNull();

        const replay = await t.deliver(hook, { headers: key });
        expect(expectDocumented(replay, 'POST', WEBHOOK)).toEqual(accepted);
        expect(replay.headers.get('idempotent-replayed')).toBe('true');

        expect(expectDocumented(await t.deliver(hook, { headers: key, body: '{"data":"other"}' }), 'POST', WEBHOOK).code).toBe(
          'idempotency_key_reused',
        );
        const overrideOff = await t.deliver(hook, {
          contentType: 'text/plain',
          body: 'hi',
          headers: { 'x-service-account-email': account.email },
        });
        expect(expectDocumented(overrideOff, 'POST', WEBHOOK).code).toBe('account_override_not_allowed');

        const wrong = await t.deliver(hook, { authorization: `Bearer whsec_${'A'.repeat(43)}` });
        expect(wrong.text).toBe(WEBHOOK_NOT_FOUND_BODY);
        expectDocumented(wrong, 'POST', WEBHOOK);
        // Signed for Standard Webhooks, sent to a bearer webhook: the same 404 (the owner sees wrong_scheme).
        const signed = await t.deliver(hook, {
          authorization: null,
          headers: {
            'webhook-id': 'msg_contract_1',
            'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
            'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}`,
          },
        });
        expect(signed.text).toBe(WEBHOOK_NOT_FOUND_BODY);
        expectDocumented(signed, 'POST', WEBHOOK);
        // Signed for Discord and refused: its one 401 (docs/signed-senders.md).
        const discord = await t.deliver(hook, {
          authorization: null,
          headers: { 'x-signature-ed25519': '00'.repeat(64), 'x-signature-timestamp': String(Math.floor(Date.now() / 1000)) },
        });
        expect(expectDocumented(discord, 'POST', WEBHOOK).code).toBe('webhook_unauthorized');
        // Handshakes: Graph's validation is answered for any id (POST as Graph sends it, or GET); any other GET is the one 404.
        const token = 'Validation: Testing client application reachability';
        const query = `?validationToken=${encodeURIComponent(token)}`;
        const validated = await t.http('POST', `${t.webhookPath(hook.webhookId)}${query}`, {
          headers: { 'content-type': 'text/plain' },
          body: '',
        });
        expectDocumented(validated, 'POST', WEBHOOK);
        expect(validated.text).toBe(token);
        expect(expectDocumented(await t.http('GET', `${t.webhookPath(hook.webhookId)}${query}`), 'GET', WEBHOOK)).toBeUndefined();
        const plainGet = await t.http('GET', t.webhookPath(hook.webhookId));
        expect(plainGet.text).toBe(WEBHOOK_NOT_FOUND_BODY);
        expectDocumented(plainGet, 'GET', WEBHOOK);
        expect(expectDocumented(await t.deliver(hook, { contentType: 'application/xml' }), 'POST', WEBHOOK).code).toBe(
          'unsupported_media_type',
        );

        const big = await t.rawRequest(
          'POST',
          t.webhookPath(hook.webhookId),
          {
            authorization: `Bearer ${hook.secret}`,
            'content-type': 'application/json',
            'content-length': '2048',
          },
          [Buffer.alloc(2048, 0x20)],
        );
        const tooLarge: HttpResult = {
          status: big.status,
          headers: toHeaders(big.headers),
          text: big.body.toString('utf8'),
          json: JSON.parse(big.body.toString('utf8')) as unknown,
        };
        expect(expectDocumented(tooLarge, 'POST', WEBHOOK).code).toBe('payload_too_large');
      });

      it('routine rules: try, 400 invalid rules, PATCH a schema and a filter, 400 payload_schema_mismatch, 200 filtered; removed', async () => {
        // A webhook of its own: the rate limit here is 5 a minute, and the other tests' deliveries use theirs.
        const ruledHook = await t.setupWebhook({ account });
        const docPath = '/admin/routines/{id}/webhook';
        const url = `/admin/routines/${ruledHook.routineId}/webhook`;
        const tryRules = (body: unknown): Promise<Json> => admin('POST', `${url}/rules/try`, `${docPath}/rules/try`, body);
        const schema = { type: 'object', required: ['action'], properties: { action: { enum: ['opened', 'closed'] } } };
        expect(await tryRules({ sample: '{"action":"closed"}', filter: 'body.action == "opened"', payload_schema: schema })).toEqual({
          filter: { result: 'not_matched' },
          payload_schema: { result: 'conforms' },
        });
        expect(await tryRules({ sample: '{"action":1}', filter: 'body.', payload_schema: schema })).toMatchObject({
          filter: { result: 'invalid' },
          payload_schema: { result: 'mismatch', errors: [{ instance_path: '/action', keyword: 'enum' }] },
        });
        expect(await tryRules({ sample: 'plain text', content_type: 'text/plain' })).toEqual({ filter: null, payload_schema: null });
        expect((await tryRules({})).code).toBe('validation_failed');
        expect((await admin('PATCH', url, docPath, { filter: 'body.action ==' })).code).toBe('invalid_filter');
        expect((await admin('PATCH', url, docPath, { payload_schema: { type: 'string', pattern: '(a+)+$' } })).code).toBe(
          'invalid_payload_schema',
        );
        const ruled = await admin('PATCH', url, docPath, { filter: 'body.action == "opened"', payload_schema: schema });
        expect(ruled).toMatchObject({ filter: 'body.action == "opened"', payload_schema: schema });
        const mismatch = expectDocumented(await t.deliver(ruledHook, { body: '{"data":{"action":"merged"}}' }), 'POST', WEBHOOK);
        expect(mismatch).toMatchObject({ code: 'payload_schema_mismatch', errors: [{ instance_path: '/action', keyword: 'enum' }] });
        const filtered = expectDocumented(await t.deliver(ruledHook, { body: '{"data":{"action":"closed"}}' }), 'POST', WEBHOOK);
        expect(filtered).toMatchObject({ run_id: null, status: 'filtered' });
        expect(await admin('PATCH', url, docPath, { filter: null, payload_schema: null })).toMatchObject({
          filter: null,
          payload_schema: null,
        });
      });

      it('public endpoint: 429 with Retry-After and RateLimit fields', async () => {
        const limited = await t.setupWebhook({ account });
        let last: HttpResult | undefined;
        for (let i = 0; i < 10 && last?.status !== 429; i++) last = await t.deliver(limited);
        expect(last?.status).toBe(429);
        expect(expectDocumented(last as HttpResult, 'POST', WEBHOOK).code).toBe('rate_limited');
      });

      it('public endpoint: 403 webhook_blocked', async () => {
        const blocked = await t.setupWebhook({
          account,
          routine: { mode: 'autonomous', tools: [{ name: 'mail', sends_externally: true }] },
        });
        expect(expectDocumented(await t.deliver(blocked), 'POST', WEBHOOK).code).toBe('webhook_blocked');
        const view = await admin('GET', `/admin/routines/${blocked.routineId}/webhook`, '/admin/routines/{id}/webhook');
        expect(view).toMatchObject({ blocked: true });
      });

      it('deliveries, runs, a run, attempts and replays', async () => {
        await t.startDispatcher();
        const run = expectDocumented((await t.waitForRun(accepted.run_id)) as HttpResult, 'GET', '/admin/runs/{run_id}');
        expect(run).toMatchObject({
          run_id: accepted.run_id,
          delivery_id: accepted.delivery_id,
          payload_format: 'json',
          payload: { hello: 'world' },
        });
        expect((await admin('GET', '/admin/runs/run_AAAAAAAAAAAAAAAAAAAAAAAA', '/admin/runs/{run_id}')).code).toBe('run_not_found');

        const deliveries = await admin(
          'GET',
          `/admin/routines/${routineId}/webhook/deliveries?limit=10`,
          '/admin/routines/{id}/webhook/deliveries',
        );
        expect(deliveries.deliveries[0]).toMatchObject({ delivery_id: accepted.delivery_id, idempotency_key: 'contract-1' });
        expect(
          (await admin('GET', `/admin/routines/${routineId}/webhook/deliveries?limit=0`, '/admin/routines/{id}/webhook/deliveries')).code,
        ).toBe('validation_failed');
        const runs = await eventuallyRuns(routineId);
        expect(runs[0]).toMatchObject({ run_id: accepted.run_id });
        expect((await admin('GET', '/admin/routines/rtn_AAAAAAAAAAAAAAAAAAAAAA/runs', '/admin/routines/{id}/runs')).code).toBe(
          'routine_not_found',
        );

        const attempts = await admin('GET', `/admin/routines/${routineId}/webhook/attempts`, '/admin/routines/{id}/webhook/attempts');
        expect(attempts.attempts.map((attempt: Json) => attempt.reason)).toEqual(
          expect.arrayContaining(['wrong_secret', 'wrong_scheme', 'idempotency_key_reused']),
        );
        const replays = await admin('GET', `/admin/routines/${routineId}/webhook/replays`, '/admin/routines/{id}/webhook/replays');
        expect(replays.replays).toContainEqual({ delivery_id: accepted.delivery_id, replays: 1 });
        const hourly = await admin(
          'GET',
          `/admin/routines/${routineId}/webhook/activity/hourly`,
          '/admin/routines/{id}/webhook/activity/hourly',
        );
        expect(hourly.hours).toHaveLength(24);
        expect(hourly.hours.reduce((sum: number, hour: Json) => sum + hour.accepted, 0)).toBeGreaterThanOrEqual(1);
        expect(
          (
            await admin(
              'GET',
              '/admin/routines/rtn_AAAAAAAAAAAAAAAAAAAAAA/webhook/activity/hourly',
              '/admin/routines/{id}/webhook/activity/hourly',
            )
          ).code,
        ).toBe('routine_not_found');
      });

      it('listings page with cursors; a cursor they did not issue is 400 invalid_cursor', async () => {
        const paged = await t.setupWebhook({ account });
        for (let i = 0; i < 2; i++) expect((await t.deliver(paged, { body: JSON.stringify({ data: { page: i } }) })).status).toBe(202);
        const all = await t.waitForDeliveries(paged.routineId, 2);
        const firstPage = await admin(
          'GET',
          `/admin/routines/${paged.routineId}/webhook/deliveries?limit=1`,
          '/admin/routines/{id}/webhook/deliveries',
        );
        expect(firstPage.deliveries.map((d: Json) => d.delivery_id)).toEqual([all[0].delivery_id]);
        expect(typeof firstPage.next_cursor).toBe('string');
        const next = await admin(
          'GET',
          `/admin/routines/${paged.routineId}/webhook/deliveries?limit=1&cursor=${firstPage.next_cursor}`,
          '/admin/routines/{id}/webhook/deliveries',
        );
        expect(next.deliveries.map((d: Json) => d.delivery_id)).toEqual([all[1].delivery_id]);
        expect(next.next_cursor).toBeNull();
        const forged = 'p.bm90LWEtcG9zaXRpb24';
        expect(
          (
            await admin(
              'GET',
              `/admin/routines/${routineId}/webhook/deliveries?cursor=${forged}`,
              '/admin/routines/{id}/webhook/deliveries',
            )
          ).code,
        ).toBe('invalid_cursor');
        expect((await admin('GET', `/admin/routines/${routineId}/runs?cursor=${forged}`, '/admin/routines/{id}/runs')).code).toBe(
          'invalid_cursor',
        );
        expect(
          (await admin('GET', `/admin/routines/${routineId}/webhook/attempts?cursor=${forged}`, '/admin/routines/{id}/webhook/attempts'))
            .code,
        ).toBe('invalid_cursor');
        expect(
          (await admin('GET', `/admin/routines/${routineId}/webhook/replays?cursor=${forged}`, '/admin/routines/{id}/webhook/replays'))
            .code,
        ).toBe('invalid_cursor');
        expect((await admin('GET', `/admin/parked?cursor=${forged}`, '/admin/parked')).code).toBe('invalid_cursor');
        expect(
          (await admin('GET', `/admin/routines/${routineId}/webhook/parked?cursor=${forged}`, '/admin/routines/{id}/webhook/parked')).code,
        ).toBe('invalid_cursor');
      });

      it("parked deliveries: all, and one routine's", async () => {
        const parked = await t.setupWebhook({ account });
        // A delivery for an account outside the routine's scope can never become a run: parked.
        const delivery = { delivery_id: await t.appendDeliveryOutsideScope(parked) };
        const listed = await eventually(
          async () => {
            const page = await admin('GET', `/admin/routines/${parked.routineId}/webhook/parked`, '/admin/routines/{id}/webhook/parked');
            return page.parked.length > 0 ? page : undefined;
          },
          8000,
          'the parked delivery',
        );
        expect(listed.parked[0]).toMatchObject({
          delivery_id: delivery.delivery_id,
          routine_id: parked.routineId,
          source_type: 'DeliveryAccepted',
          error: expect.stringContaining('account_out_of_scope'),
        });
        const all = await admin('GET', '/admin/parked?limit=1000', '/admin/parked');
        expect(all.parked.map((row: Json) => row.delivery_id)).toContain(delivery.delivery_id);
        expect(
          (await admin('GET', '/admin/routines/rtn_AAAAAAAAAAAAAAAAAAAAAA/webhook/parked', '/admin/routines/{id}/webhook/parked')).code,
        ).toBe('routine_not_found');
      });

      it('audit: admin writes with their actors and refused attempts, newest first; by actor, by routine, paged', async () => {
        const viewer = keys.viewer!;
        // Writes reach the trail through the projector; a viewer may read it.
        const trail = await eventually(
          async () => {
            const page = await admin('GET', '/admin/audit?limit=1000', '/admin/audit', undefined, viewer.key);
            const entries = page.entries as Json[];
            return entries.some((entry) => entry.action === 'webhook.enable') ? entries : undefined;
          },
          4000,
          'the webhook enable in the audit trail',
        );
        const times = trail.map((entry) => String(entry.at));
        expect([...times].sort().reverse()).toEqual(times);
        expect(trail).toContainEqual(
          expect.objectContaining({
            action: 'webhook.enable',
            outcome: 'succeeded',
            actor: { kind: 'bootstrap', subject: 'bootstrap', display: 'bootstrap token' },
            target: { type: 'webhook', id: hook.webhookId, routine_id: routineId },
            trace_id: expect.stringMatching(/^[0-9a-f]{32}$/),
          }),
        );
        expect(trail).toContainEqual(
          expect.objectContaining({
            action: 'api_key.issue',
            outcome: 'succeeded',
            actor: { kind: 'api_key', subject: keys.admin!.id, display: 'contract admin' },
          }),
        );
        expect(trail).toContainEqual(
          expect.objectContaining({
            action: 'webhook.rotate',
            outcome: 'denied',
            actor: { kind: 'api_key', subject: viewer.id, display: 'contract viewer' },
            target: { type: 'routine', id: routineId, routine_id: routineId },
            detail: expect.stringContaining('insufficient_role'),
          }),
        );
        const text = JSON.stringify(trail);
        for (const credential of [viewer.key, keys.operator!.key, TEST_ADMIN_TOKEN]) expect(text).not.toContain(credential);

        const byViewer = (await admin('GET', `/admin/audit?actor=${viewer.id}`, '/admin/audit')).entries as Json[];
        expect(byViewer.length).toBeGreaterThan(0);
        expect(byViewer.filter((entry) => entry.actor?.subject !== viewer.id)).toEqual([]);

        const first = await admin('GET', `/admin/audit?routine_id=${routineId}&limit=1`, '/admin/audit');
        expect(first.entries).toHaveLength(1);
        expect(first.entries[0].target.routine_id).toBe(routineId);
        expect(typeof first.next_cursor).toBe('string');
        const second = await admin('GET', `/admin/audit?routine_id=${routineId}&limit=1&cursor=${first.next_cursor}`, '/admin/audit');
        expect(second.entries).toHaveLength(1);
        expect(second.entries[0].target.routine_id).toBe(routineId);
        expect(second.entries[0]).not.toEqual(first.entries[0]);

        expect((await admin('GET', '/admin/audit?routine_id=not-a-routine', '/admin/audit')).code).toBe('validation_failed');
        expect((await admin('GET', '/admin/audit?cursor=p.bm90LWEtcG9zaXRpb24', '/admin/audit')).code).toBe('invalid_cursor');
      });

      it('read-model database down: listings 503 read_model_unavailable, while deliveries are still accepted', async () => {
        const listed = await t.setupWebhook({ account });
        await t.readModels.close();
        expect(
          (await admin('GET', `/admin/routines/${listed.routineId}/webhook/deliveries`, '/admin/routines/{id}/webhook/deliveries')).code,
        ).toBe('read_model_unavailable');
        expect((await admin('GET', `/admin/routines/${listed.routineId}/runs`, '/admin/routines/{id}/runs')).code).toBe(
          'read_model_unavailable',
        );
        expect((await admin('GET', '/admin/parked', '/admin/parked')).code).toBe('read_model_unavailable');
        expect((await admin('GET', `/admin/routines/${listed.routineId}/webhook/parked`, '/admin/routines/{id}/webhook/parked')).code).toBe(
          'read_model_unavailable',
        );
        expect(
          (await admin('GET', `/admin/routines/${listed.routineId}/webhook/attempts`, '/admin/routines/{id}/webhook/attempts')).code,
        ).toBe('read_model_unavailable');
        expect(
          (await admin('GET', `/admin/routines/${listed.routineId}/webhook/replays`, '/admin/routines/{id}/webhook/replays')).code,
        ).toBe('read_model_unavailable');
        expect(
          (
            await admin(
              'GET',
              `/admin/routines/${listed.routineId}/webhook/activity/hourly`,
              '/admin/routines/{id}/webhook/activity/hourly',
            )
          ).code,
        ).toBe('read_model_unavailable');
        const audit = await t.admin('GET', '/admin/audit');
        expect(expectDocumented(audit, 'GET', '/admin/audit').code).toBe('read_model_unavailable');
        expect(audit.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(expectDocumented(await t.deliver(listed), 'POST', WEBHOOK).status).toBe('accepted');
      });

      async function eventuallyRuns(id: string): Promise<Json[]> {
        // An answer the document does not describe fails at once, as it would outside the wait.
        const listed = await eventually(
          async () => {
            try {
              const runs = (await admin('GET', `/admin/routines/${id}/runs`, '/admin/routines/{id}/runs')).runs as Json[];
              return runs.length > 0 ? { runs } : undefined;
            } catch (error) {
              return { error };
            }
          },
          5000,
          'a run listed',
          25,
        );
        if ('error' in listed) throw listed.error;
        return listed.runs;
      }

      it('hold (400 for a past or offset-less release_at), hold again with an expiry, release, release again; re-dispatch', async () => {
        const holdPath = `/admin/routines/${routineId}/webhook/hold`;
        const releasePath = `/admin/routines/${routineId}/webhook/release`;
        expect((await admin('POST', holdPath, '/admin/routines/{id}/webhook/hold', { release_at: '2020-01-01T00:00:00Z' })).code).toBe(
          'validation_failed',
        );
        expect((await admin('POST', holdPath, '/admin/routines/{id}/webhook/hold', { release_at: '2099-01-01T00:00:00' })).code).toBe(
          'validation_failed',
        );
        const held = await admin('POST', holdPath, '/admin/routines/{id}/webhook/hold', {});
        expect(held).toMatchObject({ held: true, release_at: null, held_by: expect.any(String), held_since: expect.any(String) });
        const later = await admin('POST', holdPath, '/admin/routines/{id}/webhook/hold', { release_at: '2099-01-01T00:00:00+01:00' });
        expect(later).toMatchObject({ held: true, release_at: '2098-12-31T23:00:00.000Z', held_since: held.held_since });
        const released = await admin('POST', releasePath, '/admin/routines/{id}/webhook/release');
        expect(released).toMatchObject({ held: false, held_since: null, held_by: null, release_at: null });
        expect(await admin('POST', releasePath, '/admin/routines/{id}/webhook/release')).toMatchObject({ held: false });
        expect((await admin('POST', releasePath, '/admin/routines/{id}/webhook/release', { discard: 'yes' })).code).toBe(
          'validation_failed',
        );
        await admin('POST', holdPath, '/admin/routines/{id}/webhook/hold', {});
        const discarded = await admin('POST', releasePath, '/admin/routines/{id}/webhook/release', { discard: true });
        expect(discarded).toMatchObject({ held: false, held_since: null });
        const redispatchPath = '/admin/parked/redispatch';
        expect((await admin('POST', redispatchPath, redispatchPath, { source_event_ids: [] })).code).toBe('validation_failed');
        expect((await admin('POST', redispatchPath, redispatchPath, { source_event_ids: ['no such park'] })).code).toBe(
          'validation_failed',
        );
        expect(await admin('POST', redispatchPath, redispatchPath, { source_event_ids: ['00000000-0000-4000-8000-000000000000'] })).toEqual(
          {
            results: [
              { source_event_id: '00000000-0000-4000-8000-000000000000', outcome: 'not_found', run_id: null, detail: expect.any(String) },
            ],
          },
        );
      });

      it('rotate (a secret only for a provider that takes one), disable, and 409 webhook_not_enabled after disable', async () => {
        const rotatePath = `/admin/routines/${routineId}/webhook/rotate`;
        expect((await admin('POST', rotatePath, '/admin/routines/{id}/webhook/rotate', { secret: 5 })).code).toBe('validation_failed');
        expect((await admin('POST', rotatePath, '/admin/routines/{id}/webhook/rotate', { secret: 'whsec_mine' })).code).toBe(
          'signing_secret_invalid',
        );
        expect((await admin('POST', rotatePath, '/admin/routines/{id}/webhook/rotate', {})).secret).toMatch(/^whsec_/);
        const rotated = await admin('POST', `/admin/routines/${routineId}/webhook/rotate`, '/admin/routines/{id}/webhook/rotate');
        expect(rotated.secret).not.toBe(hook.secret);
        expect(rotated.verification).toEqual({ scheme: 'bearer' });
        expect((await admin('POST', `/admin/routines/${routineId}/webhook/disable`, '/admin/routines/{id}/webhook/disable')).state).toBe(
          'disabled',
        );
        expect((await admin('POST', `/admin/routines/${routineId}/webhook/rotate`, '/admin/routines/{id}/webhook/rotate')).code).toBe(
          'webhook_not_enabled',
        );
        expect(expectDocumented(await t.deliver({ webhookId: hook.webhookId, secret: rotated.secret }), 'POST', WEBHOOK).code).toBe(
          'webhook_not_found',
        );
      });

      it('erasures: 202 running, 200, 400, 403 for a lower role, 404', async () => {
        const requested = await admin('POST', '/admin/erasures', '/admin/erasures', { contains: 'nobody@example.com' });
        expect(requested).toMatchObject({ status: 'running', selected: 0, erased: 0, finished_at: null, kafka_copies_expire_by: null });
        const path = '/admin/erasures/{id}';
        expect((await admin('GET', `/admin/erasures/${requested.erasure_id as string}`, path)).erasure_id).toBe(requested.erasure_id);
        expect((await admin('POST', '/admin/erasures', '/admin/erasures', {})).code).toBe('validation_failed');
        expect((await admin('POST', '/admin/erasures', '/admin/erasures', { contains: 'x' }, keys.operator.key)).code).toBe(
          'insufficient_role',
        );
        expect((await admin('GET', '/admin/erasures/era_AAAAAAAAAAAAAAAAAAAAAA', path)).code).toBe('erasure_not_found');
      });

      it('Config page: redirect, pages, an asset, 404', async () => {
        const redirect = await t.rawRequest('GET', '/ui', {});
        expectDocumented(
          { status: redirect.status, headers: toHeaders(redirect.headers), text: redirect.body.toString('utf8'), json: undefined },
          'GET',
          '/ui',
        );
        expectDocumented(await t.http('GET', '/ui/'), 'GET', '/ui/');
        expectDocumented(await t.http('GET', '/ui/nothing-here'), 'GET', '/ui/');
        expectDocumented(await t.http('GET', `/ui/routines/${routineId}/config`), 'GET', '/ui/routines/{id}/config');
        expectDocumented(await t.http('GET', '/ui/routines/not-a-routine/config'), 'GET', '/ui/routines/{id}/config');
        expectDocumented(await t.http('GET', '/ui/assets/app.css'), 'GET', '/ui/assets/{name}');
        expect((await t.http('GET', '/ui/assets/missing.js')).status).toBe(404);
        expectDocumented(await t.http('GET', '/ui/assets/missing.js'), 'GET', '/ui/assets/{name}');
        const vendor = await t.http('GET', '/ui/assets/vendor/oauth4webapi.js');
        expect(vendor.status).toBe(200);
        expectDocumented(vendor, 'GET', '/ui/assets/vendor/{name}');
        const unknownVendor = await t.http('GET', '/ui/assets/vendor/left-pad.js');
        expect(unknownVendor.status).toBe(404);
        expectDocumented(unknownVendor, 'GET', '/ui/assets/vendor/{name}');
        expect(expectDocumented(await t.http('GET', '/ui/sign-in-settings'), 'GET', '/ui/sign-in-settings')).toEqual({
          oidc: signIn(provider.issuer, provider.audience),
          bootstrap_token: true,
        });
      });

      it('store down: 503 store_unavailable with Retry-After (webhook, admin); readiness 503 naming event_store', async () => {
        const live = await t.setupWebhook({ account });
        await t.store.close();
        expect(expectDocumented(await t.deliver(live), 'POST', WEBHOOK).code).toBe('store_unavailable');
        const write = await t.admin('POST', '/admin/accounts', { email: 'late@example.com' });
        expect(expectDocumented(write, 'POST', '/admin/accounts').code).toBe('store_unavailable');
        expect(write.headers.get('retry-after')).toMatch(/^\d+$/);
        // An API key is checked against the key catalog in the store: every admin call with one answers 503 too.
        const withKey = await t.admin('GET', '/admin/me', undefined, keys.viewer!.key);
        expect(expectDocumented(withKey, 'GET', '/admin/me').code).toBe('store_unavailable');
        expect(withKey.headers.get('retry-after')).toMatch(/^\d+$/);
        // Readiness checks each dependency at most once a second: it flips within that.
        await eventually(async () => (await t.http('GET', '/readyz')).status === 503, 3_000, 'readiness to answer 503');
        for (const path of ['/health/ready', '/readyz'])
          expect(expectDocumented(await t.http('GET', path), 'GET', path).error).toMatchObject({
            event_store: { status: 'down', message: expect.any(String) },
          });
      });

      it('exercised every documented operation', () => {
        expect([...documentedOperations().keys()].filter((key) => !exercised.has(key))).toEqual([]);
      });
    });
  });
});

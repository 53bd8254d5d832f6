/* global Buffer */
/**
 * Seeded generators of hostile HTTP requests. Each case is { family, finding?, chunks, halfClose?,
 * expectResponses? }: `chunks` are the raw bytes to write (with optional pauses); `halfClose` ends
 * the write side afterwards (a client that gives up or truncates); `finding` names an issue-10
 * finding the case is known to hit until its fix lands, so a run can leave those cases out. The
 * families of the request's content are here, those of the wire (slow, truncated, header and
 * request-line abuse, pipelining, idempotency races) in fuzz-wire-cases.mjs; the building blocks in
 * fuzz-requests.mjs.
 */
import { gzipSync, deflateSync, brotliCompressSync } from 'node:zlib';
import {
  ENCODINGS,
  MEDIA_TYPES,
  METHODS,
  PATH_TRICKS,
  caseKit,
  deepJson,
  invalidUtf8,
  prng,
  randomJson,
  request,
} from './fuzz-requests.mjs';
import { wireFamilies } from './fuzz-wire-cases.mjs';

export { prng };

/**
 * The families and their weights. `ctx` holds the live webhooks ({ path, secret } for an enabled
 * one, a disabled one and one allowing account selection), the admin token and the payload limit.
 */
export function caseFamilies(ctx) {
  const { auth, json, target, secretFor } = caseKit(ctx);
  return [
    {
      family: 'valid',
      weight: 6,
      make: (r) => ({
        chunks: request(r, {
          target: ctx.enabled.path,
          headers: [auth(r), json, ...(r.chance(0.3) ? [['X-Service-Idempotency-Key', `k-${r.int(0, 300)}`]] : [])],
          body: Buffer.from(JSON.stringify(randomJson(r))),
        }),
      }),
    },
    {
      family: 'method',
      weight: 5,
      make: (r) => ({
        chunks: request(r, {
          method: r.pick(METHODS),
          target: target(r),
          headers: [auth(r), json],
          body: r.chance(0.5) ? Buffer.from('{"data":1}') : Buffer.alloc(0),
        }),
      }),
    },
    {
      family: 'path',
      weight: 6,
      make: (r) => {
        const path = r.chance(0.1) ? `/workflow-webhooks/${'a'.repeat(r.int(1000, 12_000))}` : r.pick(PATH_TRICKS);
        return {
          chunks: request(r, { method: r.pick(['GET', 'POST']), target: path, headers: [auth(r), json], body: Buffer.from('{"data":{}}') }),
        };
      },
    },
    {
      family: 'content-type',
      weight: 8,
      make: (r) => {
        const path = target(r);
        const type = r.pick(MEDIA_TYPES);
        const body = r.pick([
          Buffer.from('{"data":{"x":1}}'),
          Buffer.from('plain words'),
          Buffer.from('\ufeff{"a":1}'),
          Buffer.from('{"a":1}', 'utf16le'),
          r.bytes(r.int(0, 200)),
        ]);
        const headers = [auth(r, secretFor(path)), ...(type === '' && r.chance(0.5) ? [] : [['Content-Type', type]])];
        if (r.chance(0.2)) headers.push(['Content-Type', r.pick(MEDIA_TYPES)]);
        return { chunks: request(r, { target: path, headers, body }) };
      },
    },
    {
      family: 'content-encoding',
      weight: 6,
      make: (r) => {
        const encoding = r.pick(ENCODINGS);
        const plain = Buffer.from(JSON.stringify({ data: randomJson(r) }));
        const body =
          encoding.includes('gzip') && r.chance(0.7)
            ? gzipSync(plain)
            : encoding === 'deflate'
              ? deflateSync(plain)
              : encoding === 'br'
                ? brotliCompressSync(plain)
                : r.chance(0.5)
                  ? plain
                  : r.bytes(r.int(1, 300));
        return { chunks: request(r, { target: target(r), headers: [auth(r), json, ['Content-Encoding', encoding]], body }) };
      },
    },
    {
      family: 'charset-utf8',
      weight: 7,
      make: (r) => {
        const charset = r.pick(['utf-8', 'utf-16le', 'iso-8859-1', 'windows-1252', 'utf-16be', 'gb18030']);
        const mediaType = r.pick(['application/json', 'text/plain']);
        const body = r.pick([
          invalidUtf8(r),
          Buffer.from('{"data":"\\ud800"}'),
          Buffer.from('"\\u0000"'),
          Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
          r.bytes(r.int(1, 500)),
          Buffer.from('caf\u00e9', 'latin1'),
        ]);
        return {
          chunks: request(r, { target: ctx.enabled.path, headers: [auth(r), ['Content-Type', `${mediaType}; charset=${charset}`]], body }),
        };
      },
    },
    {
      family: 'json-huge',
      weight: 1,
      make: (r) => {
        const size = r.pick([ctx.maxPayloadBytes - 100, ctx.maxPayloadBytes + 1, ctx.maxPayloadBytes * 2, 1024 * 1024, 4 * 1024 * 1024]);
        const filler = r.pick(['a', '\u0001', '<', '\\u0000']);
        const body = Buffer.from(`{"data":"${filler.repeat(Math.ceil(size / filler.length)).slice(0, size)}"}`);
        return {
          chunks: request(r, {
            target: r.pick([ctx.enabled.path, '/nope', '/admin/accounts']),
            headers: [auth(r), json],
            body,
            chunked: r.chance(0.3),
          }),
        };
      },
    },
    {
      family: 'json-deep',
      weight: 3,
      make: (r) => ({
        chunks: request(r, {
          target: target(r),
          headers: [auth(r), json],
          body: Buffer.from(deepJson(r, r.pick([100, 511, 513, 5_000, 50_000]))),
        }),
      }),
    },
    {
      // Finding 1 (issue 10): an admin body nested thousands of levels deep answers 500 until fixed.
      family: 'admin-deep',
      finding: 1,
      weight: 1,
      make: (r) => ({
        chunks: request(r, {
          target: r.pick(['/admin/accounts', '/admin/routines']),
          headers: [['Authorization', `Bearer ${ctx.adminToken}`], json],
          body: Buffer.from(`{"email":${deepJson(r, r.pick([2_000, 20_000]))}}`),
        }),
      }),
    },
    {
      family: 'admin',
      weight: 5,
      make: (r) => {
        const token = r.chance(0.6) ? ctx.adminToken : r.pick(['', 'wrong', ctx.adminToken.slice(1), `${ctx.adminToken} `]);
        const path = r.pick([
          '/admin/accounts',
          '/admin/routines',
          `/admin/routines/${ctx.enabled.routineId}`,
          `/admin/routines/${ctx.enabled.routineId}/webhook/rotate-nope`,
          '/admin/routines?limit=-1',
          '/admin/routines?cursor=%ff',
          '/admin/runs/x',
          '/admin/parked?limit=99999',
          `/admin/routines/${ctx.enabled.routineId}/webhook/attempts?limit=abc`,
          '/admin/accounts/acc_nope',
        ]);
        const method = r.pick(['GET', 'POST', 'PATCH', 'DELETE']);
        const body = r.pick([
          JSON.stringify(randomJson(r)),
          '{"email":123}',
          '{"email":"a@b.c","aliases":[1,2]}',
          '{"email":"x@example.com","extra":true}',
          '{"name":"","instructions":null,"tools":{},"mode":"x","account_scope":"a"}',
          '[]',
          'null',
          '"s"',
          '{',
          '{"__proto__":{"email":"x@y.z"}}',
          '{"constructor":{"prototype":{"admin":true}}}',
        ]);
        return {
          chunks: request(r, {
            method,
            target: path,
            headers: [
              ['Authorization', `Bearer ${token}`],
              ['Content-Type', r.pick(['application/json', 'text/plain', 'application/json; charset=latin1'])],
            ],
            body: method === 'GET' && r.chance(0.5) ? Buffer.alloc(0) : Buffer.from(body),
          }),
        };
      },
    },
    ...wireFamilies(ctx),
  ];
}

/** Picks families by weight, leaving out those tagged with an excluded finding. */
export function caseSource(ctx, seed, excludedFindings = []) {
  const r = prng(seed);
  const families = caseFamilies(ctx).filter((entry) => entry.finding === undefined || !excludedFindings.includes(entry.finding));
  const total = families.reduce((sum, entry) => sum + entry.weight, 0);
  return () => {
    let roll = r.next() * total;
    const family = families.find((entry) => (roll -= entry.weight) < 0) ?? families[families.length - 1];
    return { family: family.family, finding: family.finding, ...family.make(r) };
  };
}

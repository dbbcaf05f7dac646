// docs/openapi.json as the tests use it: the document, a validator for any
// schema in it (refs resolved), and the check of one HTTP answer against the
// operation's response. Coverage of operations is recorded here.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import assert from 'node:assert/strict';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const docPath = path.join(repoRoot, 'docs/openapi.json');
export const docText = readFileSync(docPath, 'utf8');
export const doc = JSON.parse(docText);

export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

// The object a local "#/..." pointer names, or undefined.
export function pointer(ref) {
  if (!ref.startsWith('#/')) return undefined;
  let node = doc;
  for (const raw of ref.slice(2).split('/')) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !(part in node)) return undefined;
    node = node[part];
  }
  return node;
}

// Follows $ref chains of OpenAPI objects (responses, parameters, headers).
export function deref(node) {
  const seen = new Set();
  while (node && typeof node === 'object' && typeof node.$ref === 'string') {
    assert.ok(!seen.has(node.$ref), `$ref cycle at ${node.$ref}`);
    seen.add(node.$ref);
    const target = pointer(node.$ref);
    assert.ok(target !== undefined, `unresolved $ref ${node.$ref}`);
    node = target;
  }
  return node;
}

// Schemas compile in one Ajv whose container schema holds the document's
// components.schemas under $defs: "#/components/schemas/X" becomes
// "oas#/$defs/X". Strict mode: an unknown keyword or a typo is an error.
const SCHEMA_ID = 'https://indelible.invalid/openapi-schemas';
function rewriteRefs(node) {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node && typeof node === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/'))
        out[k] = `${SCHEMA_ID}#/$defs/${v.slice('#/components/schemas/'.length)}`;
      else out[k] = rewriteRefs(v);
    }
    return out;
  }
  return node;
}

export function makeAjv() {
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  // OpenAPI's discriminator is a hint for generators (Ajv's own takes no
  // `mapping`): oneOf and the variants' const validate; document.test.js
  // checks that each mapping agrees with its variant's const.
  ajv.addKeyword({ keyword: 'discriminator', schemaType: 'object' });
  return ajv;
}

const ajv = makeAjv();
ajv.addSchema({ $id: SCHEMA_ID, $defs: rewriteRefs(doc.components?.schemas ?? {}) });
const compiled = new Map();

export function validator(schema) {
  const key = JSON.stringify(schema);
  let fn = compiled.get(key);
  if (!fn) {
    fn = ajv.compile(rewriteRefs(schema));
    compiled.set(key, fn);
  }
  return fn;
}

export function validate(schema, value, what) {
  const fn = validator(schema);
  if (!fn(value)) {
    const shown = JSON.stringify(value);
    assert.fail(
      `${what} does not match its schema:\n${JSON.stringify(fn.errors, null, 1)}\nvalue: ${shown.length > 2000 ? shown.slice(0, 2000) + '...' : shown}`,
    );
  }
}

// Every operation of the document: "METHOD /path" -> operation.
export function operations() {
  const out = new Map();
  for (const [p, item] of Object.entries(doc.paths ?? {}))
    for (const m of METHODS) if (item[m]) out.set(`${m.toUpperCase()} ${p}`, item[m]);
  return out;
}

// What the tests validated: "METHOD /path" -> Set of statuses.
export const covered = new Map();
// Statuses validated against components.responses (routeless answers).
export const componentCovered = new Set();
// How many error answers (4xx, 5xx) were validated, operations' and routeless.
export const errorAnswers = { count: 0 };

function mediaType(contentType) {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

// The described media type the answer's Content-Type matches: exact
// (parameters too) when the document gives parameters, else by type.
function findMedia(content, contentType) {
  const sent = (contentType ?? '').replace(/\s+/g, '').toLowerCase();
  for (const [key, media] of Object.entries(content)) {
    const described = key.replace(/\s+/g, '').toLowerCase();
    if (described.includes(';') ? sent === described : mediaType(contentType) === described) return media;
  }
  return undefined;
}

// Headers of the API (not of HTTP plumbing such as Server or
// Content-Length): one the server sends must be described on that response,
// so a header added to the server fails here until the document has it.
// (CORS headers come on any answer to an allowed Origin: described on the
// preflights only.)
const API_HEADERS = ['etag', 'location', 'idempotent-replay', 'www-authenticate', 'allow', 'retry-after', 'cache-control', 'x-request-id'];

function checkHeaders(described, res, what) {
  const names = new Set(Object.keys(described ?? {}).map((n) => n.toLowerCase()));
  for (const name of API_HEADERS)
    assert.ok(res.headers[name] === undefined || names.has(name), `${what}: the server sent ${name}: ${res.headers[name]}, which the document does not describe here`);
  for (const [name, h] of Object.entries(described ?? {})) {
    const header = deref(h);
    const value = res.headers[name.toLowerCase()];
    if (value === undefined) {
      assert.ok(!header.required, `${what}: the required header ${name} is missing`);
      continue;
    }
    if (header.schema) validate(header.schema, value, `${what}: header ${name} (${JSON.stringify(value)})`);
  }
}

// Checks an answer ({status, headers, body: text}) against a response object.
export function checkResponse(response, res, what) {
  response = deref(response);
  checkHeaders(response.headers, res, what);
  if (!response.content) {
    assert.equal(res.body ?? '', '', `${what}: a body where the document describes none`);
    return undefined;
  }
  const media = findMedia(response.content, res.headers['content-type']);
  assert.ok(
    media,
    `${what}: Content-Type ${res.headers['content-type']} is not one of ${Object.keys(response.content).join(', ')}`,
  );
  if (mediaType(res.headers['content-type']) === 'application/json') {
    let value;
    try {
      value = JSON.parse(res.body);
    } catch (e) {
      assert.fail(`${what}: the body is not JSON: ${res.body.slice(0, 200)}`);
    }
    if (media.schema) validate(media.schema, value, `${what}: body`);
    return value;
  }
  if (media.schema && typeof res.body === 'string') validate(media.schema, res.body, `${what}: body`);
  return res.body;
}

// Checks an answer against the operation METHOD template; returns the parsed body.
export function check(method, template, res) {
  const key = `${method.toUpperCase()} ${template}`;
  const op = doc.paths?.[template]?.[method.toLowerCase()];
  assert.ok(op, `${key} is not in docs/openapi.json`);
  const what = `${key} -> ${res.status}`;
  const response = op.responses?.[String(res.status)];
  assert.ok(
    response,
    `${what}: status ${res.status} is not described (described: ${Object.keys(op.responses ?? {}).join(', ')}); body: ${String(res.body).slice(0, 300)}`,
  );
  const value = checkResponse(response, res, what);
  if (!covered.has(key)) covered.set(key, new Set());
  covered.get(key).add(res.status);
  if (res.status >= 400) errorAnswers.count++;
  return value;
}

// Checks a routeless answer (unknown path, method not allowed) against components.responses.
export function checkComponent(name, expectedStatus, res) {
  const response = doc.components?.responses?.[name];
  assert.ok(response, `components.responses.${name} is missing`);
  assert.equal(res.status, expectedStatus, `${name}: status ${res.status}, body ${res.body}`);
  const value = checkResponse(response, res, `components.responses.${name} (${res.status})`);
  componentCovered.add(name);
  if (res.status >= 400) errorAnswers.count++;
  return value;
}

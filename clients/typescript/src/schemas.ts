// Event schemas (docs/SCHEMAS.md, "HTTP"): the registry of JSON Schemas per
// event type and version, its settings (off/warn/enforce, compatibility) and
// declarative upcasters. Reading needs any right, changing an admin key.

import { answerInteger, checkObject, describeValue, invalidArgument, type AnswerContext } from './check.js';
import { CALL_MEMBERS, callOptions, type CallOptions, type JsonResponse, type RequestOptions, type Transport } from './http.js';

/** What an append does with an event its schema refuses. */
export type SchemaMode = 'off' | 'warn' | 'enforce';
/** What a new version of a type must keep (Confluent Schema Registry's modes). */
export type Compatibility = 'none' | 'backward' | 'backward_transitive' | 'forward' | 'forward_transitive' | 'full' | 'full_transitive';

/** Settings of a type, a stream category or the default; an absent member is inherited. */
export interface SchemaSettings {
  mode?: SchemaMode;
  compatibility?: Compatibility;
}

/** One registered version of a type's schema. */
export interface SchemaVersion {
  type: string;
  /** The label events carry in `schema`: `'V2'`. */
  version: string;
  /** 1 for the type's first version, then +1 (registration order). */
  number: number;
  /** The JSON Schema, as registered. */
  schema: unknown;
  /** Unix milliseconds. */
  registeredAt: number;
}

/** A declarative upcaster from one version to the next, applied in this order: renames, defaults, patch. */
export interface Upcaster {
  from: string;
  /** The version registered right after `from`. */
  to: string;
  /** JSON Pointer to JSON Pointer: the value moves. */
  renames?: Record<string, string>;
  /** JSON Pointer to a value, set where nothing is. */
  defaults?: Record<string, unknown>;
  /** RFC 6902 JSON Patch operations. */
  patch?: unknown[];
}

/** A type's registry entry. */
export interface SchemaType {
  type: string;
  /** Oldest first. */
  versions: SchemaVersion[];
  /** As set for the type (absent members inherit: category, then default). */
  settings: SchemaSettings;
  upcasters: Upcaster[];
}

/** Category and default settings, as set. */
export interface SchemaSettingsList {
  categories: Record<string, SchemaSettings>;
  default: SchemaSettings;
}

/** `GET /schemas`: every type, and the category and default settings. */
export interface SchemaList extends SchemaSettingsList {
  types: SchemaType[];
}

export interface RegisterSchemaResult {
  version: SchemaVersion;
  /** False when that exact version was there already (200, nothing written). */
  created: boolean;
}

/** The answer of a compatibility dry run. */
export type SchemaCheckResult = { compatible: true } | { compatible: false; reason: string };

/** The answer of `validateEvent`: the JSON Pointer of the failing value and the rule it broke. */
export type ValidateEventResult = { valid: true } | { valid: false; pointer: string; rule: string };

type Json = Record<string, unknown>;

const SETTINGS_MEMBERS: ReadonlySet<string> = new Set(['mode', 'compatibility']);
const UPCASTER_MEMBERS: ReadonlySet<string> = new Set(['from', 'to', 'renames', 'defaults', 'patch']);
const VALIDATE_OPTIONS: ReadonlySet<string> = new Set(['version', ...CALL_MEMBERS]);

function typePath(type: string, call: string): string {
  if (typeof type !== 'string' || type === '') throw invalidArgument(call, 'type', `must be an event type (a non-empty string), not ${describeValue(type)}`);
  return '/schemas/' + encodeURIComponent(type);
}

function requireString(value: unknown, call: string, field: string): string {
  if (typeof value !== 'string' || value === '') throw invalidArgument(call, field, `must be a non-empty string, not ${describeValue(value)}`);
  return value;
}

function object(value: unknown): Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
}

function decodeSettings(raw: unknown): SchemaSettings {
  const s = object(raw);
  const out: SchemaSettings = {};
  if (typeof s.mode === 'string') out.mode = s.mode as SchemaMode;
  if (typeof s.compatibility === 'string') out.compatibility = s.compatibility as Compatibility;
  return out;
}

function decodeSettingsMap(raw: unknown): Record<string, SchemaSettings> {
  const out: Record<string, SchemaSettings> = {};
  for (const [category, settings] of Object.entries(object(raw))) out[category] = decodeSettings(settings);
  return out;
}

function decodeVersion(raw: unknown, answer: AnswerContext): SchemaVersion {
  const v = object(raw);
  return {
    type: String(v.type),
    version: String(v.version),
    number: answerInteger(v.number, answer, 'schema version number'),
    schema: v.schema,
    registeredAt: answerInteger(v.registeredAt, answer, 'registeredAt'),
  };
}

function decodeUpcaster(raw: unknown): Upcaster {
  const u = object(raw);
  const out: Upcaster = { from: String(u.from), to: String(u.to) };
  if (u.renames !== undefined) out.renames = u.renames as Record<string, string>;
  if (u.defaults !== undefined) out.defaults = u.defaults as Record<string, unknown>;
  if (u.patch !== undefined) out.patch = u.patch as unknown[];
  return out;
}

function decodeType(raw: unknown, answer: AnswerContext): SchemaType {
  const t = object(raw);
  return {
    type: String(t.type),
    versions: Array.isArray(t.versions) ? t.versions.map((v) => decodeVersion(v, answer)) : [],
    settings: decodeSettings(t.settings),
    upcasters: Array.isArray(t.upcasters) ? t.upcasters.map(decodeUpcaster) : [],
  };
}

function checkSettings(settings: SchemaSettings, call: string): void {
  checkObject(settings, SETTINGS_MEMBERS, call, 'settings');
}

/** The calls behind Client's schema methods (one per route of docs/SCHEMAS.md "HTTP"). */
export class SchemaRoutes {
  constructor(private readonly transport: Transport) {}

  async list(options: CallOptions): Promise<SchemaList> {
    const res = await this.transport.request<Json>('GET', '/schemas', callOptions(options, 'listSchemas'));
    const types = Array.isArray(res.json.types) ? res.json.types : [];
    return { types: types.map((t) => decodeType(t, res)), categories: decodeSettingsMap(res.json.categories), default: decodeSettings(res.json.default) };
  }

  async type(type: string, options: CallOptions): Promise<SchemaType> {
    const call = callOptions(options, 'getSchemaType');
    const res = await this.transport.request<Json>('GET', typePath(type, 'getSchemaType'), call);
    return decodeType(res.json, res);
  }

  async version(type: string, version: string, options: CallOptions): Promise<SchemaVersion> {
    const call = callOptions(options, 'getSchemaVersion');
    const path = `${typePath(type, 'getSchemaVersion')}/versions/${encodeURIComponent(requireString(version, 'getSchemaVersion', 'version'))}`;
    const res = await this.transport.request<Json>('GET', path, call);
    return decodeVersion(res.json, res);
  }

  async register(type: string, version: string, schema: unknown, options: CallOptions): Promise<RegisterSchemaResult> {
    const call = callOptions(options, 'registerSchema');
    const path = typePath(type, 'registerSchema') + '/versions';
    requireString(version, 'registerSchema', 'version');
    if (schema === undefined) throw invalidArgument('registerSchema', 'schema', 'is required: a JSON Schema (an object, or true/false)');
    // Registering the same version again is a no-op: safe to retry.
    const res = await this.transport.request<Json>('POST', path, { body: { version, schema }, ...call });
    return { version: decodeVersion(res.json, res), created: res.status === 201 };
  }

  async check(type: string, schema: unknown, options: CallOptions): Promise<SchemaCheckResult> {
    const call = callOptions(options, 'checkSchema');
    if (schema === undefined) throw invalidArgument('checkSchema', 'schema', 'is required: a JSON Schema (an object, or true/false)');
    const res = await this.transport.request<Json>('POST', typePath(type, 'checkSchema') + '/check', { body: { schema }, ...call });
    if (res.json.compatible === true) return { compatible: true };
    return { compatible: false, reason: String(res.json.reason ?? '') };
  }

  async setTypeSettings(type: string, settings: SchemaSettings, options: CallOptions): Promise<SchemaSettings> {
    const call = callOptions(options, 'setSchemaSettings');
    checkSettings(settings, 'setSchemaSettings');
    return this.put(typePath(type, 'setSchemaSettings') + '/settings', settings, call);
  }

  async setCategorySettings(category: string, settings: SchemaSettings, options: CallOptions): Promise<SchemaSettings> {
    const call = callOptions(options, 'setCategorySchemaSettings');
    checkSettings(settings, 'setCategorySchemaSettings');
    const path = '/schema-settings/categories/' + encodeURIComponent(requireString(category, 'setCategorySchemaSettings', 'category'));
    return this.put(path, settings, call);
  }

  async setDefaultSettings(settings: SchemaSettings, options: CallOptions): Promise<SchemaSettings> {
    const call = callOptions(options, 'setDefaultSchemaSettings');
    checkSettings(settings, 'setDefaultSchemaSettings');
    return this.put('/schema-settings/default', settings, call);
  }

  async addUpcaster(type: string, upcaster: Upcaster, options: CallOptions): Promise<void> {
    const call = callOptions(options, 'addUpcaster');
    checkObject(upcaster, UPCASTER_MEMBERS, 'addUpcaster', 'upcaster');
    requireString(upcaster.from, 'addUpcaster', 'upcaster.from');
    requireString(upcaster.to, 'addUpcaster', 'upcaster.to');
    // A second identical upcaster is a conflict on the server: not retried blindly.
    await this.transport.request<Json>('POST', typePath(type, 'addUpcaster') + '/upcasters', { body: upcaster, idempotent: false, ...call });
  }

  async validate(type: string, data: unknown, options: { version?: string } & CallOptions): Promise<ValidateEventResult> {
    const call = callOptions(options, 'validateEvent', VALIDATE_OPTIONS);
    const body: Json = { data: data === undefined ? null : data };
    if (options.version !== undefined) body.version = requireString(options.version, 'validateEvent', 'version');
    const res = await this.transport.request<Json>('POST', typePath(type, 'validateEvent') + '/validate', { body, ...call });
    if (res.json.valid === true) return { valid: true };
    return { valid: false, pointer: String(res.json.pointer ?? ''), rule: String(res.json.rule ?? '') };
  }

  async settings(options: CallOptions): Promise<SchemaSettingsList> {
    const res = await this.transport.request<Json>('GET', '/schema-settings', callOptions(options, 'getSchemaSettings'));
    return { categories: decodeSettingsMap(res.json.categories), default: decodeSettings(res.json.default) };
  }

  private async put(path: string, settings: SchemaSettings, call: RequestOptions): Promise<SchemaSettings> {
    const res: JsonResponse<Json> = await this.transport.request<Json>('PUT', path, { body: settings, ...call });
    return decodeSettings(res.json);
  }
}

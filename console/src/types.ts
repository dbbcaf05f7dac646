// The JSON shapes of the API the console reads (docs/HTTP.md).

export interface StoredEvent {
  id: string;
  stream: string;
  version: number;
  position: number;
  timestamp: number; // Unix ms
  type: string;
  schema?: string;
  data: unknown;
  metadata?: Record<string, unknown>;
  contentType?: string;
  dataEncoding?: string;
}

export interface StreamSummary {
  stream: string;
  version: number;
  position: number;
  deleted: boolean;
  lastWrite: number;
}

export interface StreamList {
  streams: StreamSummary[];
  next: string | null;
}

export interface StreamHead {
  stream: string;
  version: number;
  position: number;
  deleted: boolean;
  firstVersion: number;
}

export interface StreamPage {
  stream: string;
  events: StoredEvent[];
  nextVersion: number | null;
}

export interface AllPage {
  events: StoredEvent[];
  next: number | null;
}

export interface ConsumerStatus {
  group: string;
  checkpoint: number;
  lastPosition: number;
  lagEvents: number;
  lagSeconds: number;
  inFlight: number;
  redeliveries: number;
  blocked: null | { position: number; reason: string };
  parked: { streams: number; events: number; replaying: boolean };
}

export interface AppendResult {
  stream: string;
  firstVersion: number;
  lastVersion: number;
  position: number;
}

// Event schemas (docs/SCHEMAS.md, "HTTP").
export interface SchemaSettings {
  mode?: 'off' | 'warn' | 'enforce';
  compatibility?: string;
}

export interface SchemaVersion {
  type: string;
  version: string;
  number: number;
  schema: unknown;
  registeredAt: number; // Unix ms
}

export interface SchemaUpcaster {
  from: string;
  to: string;
  renames?: Record<string, string>;
  defaults?: Record<string, unknown>;
  patch?: unknown[];
}

export interface SchemaType {
  type: string;
  versions: SchemaVersion[];
  settings: SchemaSettings;
  upcasters: SchemaUpcaster[];
}

export interface SchemaList {
  types: SchemaType[];
  categories: Record<string, SchemaSettings>;
  default: SchemaSettings;
}

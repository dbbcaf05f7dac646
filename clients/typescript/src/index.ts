// @indelible/client: the TypeScript client of indelible's HTTP/JSON API.

export { Client } from './client.js';
export { Consumers } from './consumers.js';
export type { ConsumerGroupOptions, ConsumerMember, ConsumerStatus, Delivery, ParkedEvent, ParkedPage, ParkedState, PullOptions } from './consumers.js';
export { Worker } from './worker.js';
export type { Handler, WorkerOptions } from './worker.js';
export {
  IndelibleError,
  ConflictError,
  NotFoundError,
  InvalidError,
  TooLargeError,
  UnauthorizedError,
  ForbiddenError,
  RejectedError,
  UnavailableError,
  InternalError,
  CodecError,
} from './errors.js';
export { dateCodec } from './event-codecs.js';
export type { DatePath } from './event-codecs.js';
export type {
  Compatibility,
  RegisterSchemaResult,
  SchemaCheckResult,
  SchemaList,
  SchemaMode,
  SchemaSettings,
  SchemaSettingsList,
  SchemaType,
  SchemaVersion,
  Upcaster,
  ValidateEventResult,
} from './schemas.js';
export type { TransportKind } from './runtime.js';
export type { CallOptions } from './http.js';
export { parseSse } from './sse.js';
export type { SseItem, SseMessage, SubscribeOptions } from './sse.js';
export type {
  AllFilter,
  AllPage,
  AppendCondition,
  AppendResult,
  ClientOptions,
  CommitAppend,
  CommitOptions,
  CommitResult,
  Codecs,
  EventCodec,
  EventData,
  EventInput,
  EventInputFields,
  EventShape,
  Expected,
  GrantRule,
  Query,
  QueryItem,
  QueryPage,
  RawRead,
  RecordedEvent,
  RecordedEventFields,
  ScavengeReport,
  ShredReport,
  StateInput,
  StateRecord,
  StoredStreamMetadata,
  StreamHead,
  StreamInfo,
  StreamLastEvent,
  StreamListPage,
  StreamMetadata,
  StreamMetadataWritten,
  StreamPage,
  WhoAmI,
} from './types.js';

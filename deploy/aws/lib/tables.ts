// The store's three DynamoDB tables, laid out exactly as `indelible serve`
// creates them when it may (src/storage/dynamodb/tables.cc,
// CreateOrCheckTable; docs/DYNAMODB.md). A server started with
// create_tables=0 only checks them, so a difference here (a key's name or
// type, the index, the stream) stops it at open with `invalid`.
import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';

// Table names allow A-Z a-z 0-9 _ - . ; the store URL takes a prefix of at
// most 200 of them (src/storage/dynamodb/store_url.cc, ValidPrefix).
export const PREFIX_PATTERN = /^[A-Za-z0-9_.-]{0,200}$/;
export const DEFAULT_PREFIX = 'indelible_';

// The names tables.cc and its callers use (tip.h, all_index.cc,
// dynamodb_store.cc).
export const EVENTS = {
  suffix: 'events',
  partitionKey: { name: 'stream', type: dynamodb.AttributeType.STRING },
  sortKey: { name: 'version', type: dynamodb.AttributeType.NUMBER },
  // Snapshot items carry it: DynamoDB deletes them some time after it.
  ttlAttribute: 'expires_at',
  // The listing index (tip.h, kListIndex): one entry per stream.
  listIndex: {
    name: 'streams_by_name',
    partitionKey: { name: 'lk', type: dynamodb.AttributeType.STRING },
    sortKey: { name: 'stream', type: dynamodb.AttributeType.STRING },
  },
} as const;

export const ALL = {
  suffix: 'all',
  partitionKey: { name: 'block', type: dynamodb.AttributeType.NUMBER },
  sortKey: { name: 'position', type: dynamodb.AttributeType.NUMBER },
} as const;

export const CHECKPOINTS = {
  suffix: 'checkpoints',
  partitionKey: { name: 'name', type: dynamodb.AttributeType.STRING },
} as const;

export interface StoreTables {
  readonly events: dynamodb.Table;
  readonly all: dynamodb.Table;
  readonly checkpoints: dynamodb.Table;
}

// What every table shares: on-demand billing as indelible asks for it,
// point-in-time recovery (35 days of restores to any second), deletion
// protection, and kept when the stack is deleted or the resource replaced:
// an event store is not something a stack update may drop. Encryption at
// rest is DynamoDB's default (an AWS owned key), deliberately: a customer
// managed key adds a KMS key's monthly price, KMS requests and a key policy
// to keep (a table whose key is disabled cannot be read), which a team whose
// rules ask for one adds here (encryption: TableEncryption.CUSTOMER_MANAGED).
function common(prefix: string, suffix: string) {
  return {
    tableName: prefix + suffix,
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    deletionProtection: true,
    removalPolicy: RemovalPolicy.RETAIN,
  };
}

export function storeTables(scope: Construct, prefix: string): StoreTables {
  if (!PREFIX_PATTERN.test(prefix))
    throw new Error(
      `table prefix '${prefix}' may hold only A-Z a-z 0-9 _ - . (at most 200 of them)`,
    );
  const events = new dynamodb.Table(scope, 'EventsTable', {
    ...common(prefix, EVENTS.suffix),
    partitionKey: EVENTS.partitionKey,
    sortKey: EVENTS.sortKey,
    // The $all indexer reads the change stream (docs/DYNAMODB.md, "$all").
    stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
    timeToLiveAttribute: EVENTS.ttlAttribute,
  });
  events.addGlobalSecondaryIndex({
    indexName: EVENTS.listIndex.name,
    partitionKey: EVENTS.listIndex.partitionKey,
    sortKey: EVENTS.listIndex.sortKey,
    projectionType: dynamodb.ProjectionType.KEYS_ONLY,
  });
  const all = new dynamodb.Table(scope, 'AllTable', {
    ...common(prefix, ALL.suffix),
    partitionKey: ALL.partitionKey,
    sortKey: ALL.sortKey,
  });
  const checkpoints = new dynamodb.Table(scope, 'CheckpointsTable', {
    ...common(prefix, CHECKPOINTS.suffix),
    partitionKey: CHECKPOINTS.partitionKey,
  });
  return { events, all, checkpoints };
}

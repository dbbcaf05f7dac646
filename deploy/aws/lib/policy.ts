// The server's IAM permissions, from deploy/aws/iam-actions.json, which
// `indelible dynamodb policy --actions` prints from the one list of the
// requests the store sends (src/storage/dynamodb/iam_policy.cc; the policy
// test holds that list to what the client sends during the conformance
// run): "server", the actions of a server started with create_tables=0;
// "admin", those only making the tables needs; "index" and "stream", which
// of the server's IAM must also grant on the listing index and on the
// change stream. Each action is granted on the resources it acts on and no
// others.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as iam from 'aws-cdk-lib/aws-iam';
import { EVENTS } from './tables';
import type { StoreTables } from './tables';

export interface IamActions {
  readonly server: readonly string[];
  readonly admin: readonly string[];
  // Of the server's: granted on the listing index (besides the tables), and
  // on the change stream (instead of the tables).
  readonly index: readonly string[];
  readonly stream: readonly string[];
}

export const IAM_ACTIONS_FILE = path.join(__dirname, '..', 'iam-actions.json');

export function loadIamActions(file: string = IAM_ACTIONS_FILE): IamActions {
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  const list = (key: string): string[] => {
    const value = parsed[key];
    if (!Array.isArray(value) || value.some((a) => typeof a !== 'string' || !/^dynamodb:\w+$/.test(a)))
      throw new Error(`${file}: "${key}" must be a list of dynamodb:Action names`);
    return value as string[];
  };
  const actions = { server: list('server'), admin: list('admin'), index: list('index'), stream: list('stream') };
  for (const key of ['index', 'stream'] as const)
    for (const action of actions[key])
      if (!actions.server.includes(action)) throw new Error(`${file}: ${action} is in "${key}" but not in "server"`);
  return actions;
}

// The statements granting `actions` on the store's tables: the tables'
// ARNs, the listing index's, the change stream's (its exact ARN: the stack
// made the stream). Nothing on "*", no wildcard action: an action IAM only
// grants on "*" (ListStreams, ListTables) has no place in a least-privilege
// list and is refused here rather than widened.
export function tableStatements(
  tables: StoreTables,
  actions: readonly string[],
  on: Pick<IamActions, 'index' | 'stream'>,
): iam.PolicyStatement[] {
  for (const action of actions)
    if (action.includes('*') || action === 'dynamodb:ListStreams' || action === 'dynamodb:ListTables')
      throw new Error(`${action} cannot be scoped to the store's tables`);
  const tableArns = [tables.events.tableArn, tables.all.tableArn, tables.checkpoints.tableArn];
  const indexArn = `${tables.events.tableArn}/index/${EVENTS.listIndex.name}`;
  const streamArn = tables.events.tableStreamArn;
  if (streamArn === undefined) throw new Error('the events table has no change stream');
  const sorted = [...new Set(actions)].sort();
  const onStream = sorted.filter((a) => on.stream.includes(a));
  const onIndex = sorted.filter((a) => on.index.includes(a) && !on.stream.includes(a));
  const onTables = sorted.filter((a) => !on.stream.includes(a) && !on.index.includes(a));
  const statements: iam.PolicyStatement[] = [];
  if (onTables.length > 0)
    statements.push(new iam.PolicyStatement({ sid: 'Tables', actions: onTables, resources: tableArns }));
  if (onIndex.length > 0)
    statements.push(
      new iam.PolicyStatement({ sid: 'TablesAndIndex', actions: onIndex, resources: [...tableArns, indexArn] }),
    );
  if (onStream.length > 0)
    statements.push(new iam.PolicyStatement({ sid: 'ChangeStream', actions: onStream, resources: [streamArn] }));
  return statements;
}

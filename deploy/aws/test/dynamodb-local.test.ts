// The stack's tables as CloudFormation would make them, on DynamoDB Local,
// opened by the real `indelible serve` with the task definition's command:
// create_tables=0 (the server only checks the tables: keys, listing index,
// change stream, TTL), TLS with the certificate docker-entrypoint.sh makes.
// It serves /health, and an append reaches $all through the change stream
// the stack turned on; a table made otherwise stops it at start.
//
// Needs INDELIBLE_DYNAMODB_ENDPOINT (DynamoDB Local, http://127.0.0.1:PORT)
// and INDELIBLE_BIN (the indelible command): scripts/check-deploy-aws.sh
// starts the one and finds the other. Without them the tests are skipped,
// saying so, except under CI=true, where that is a failure.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp } from '../lib/app';
import { loadIamActions } from '../lib/policy';

const endpoint = process.env.INDELIBLE_DYNAMODB_ENDPOINT;
const bin = process.env.INDELIBLE_BIN;
const missing = !endpoint || !bin ? 'INDELIBLE_DYNAMODB_ENDPOINT and INDELIBLE_BIN are not set' : undefined;
if (missing && process.env.CI === 'true') throw new Error(`${missing} (scripts/check-deploy-aws.sh sets them)`);

const cdkContext = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'cdk.json'), 'utf8')).context;
const region = 'eu-west-1';
const run = `${process.pid}`;
const prefixes: string[] = [];

// The stack's template for `prefix`: what CloudFormation would be given.
function template(prefix: string): any {
  const app = new App({ context: { ...cdkContext, region, prefix, stackName: `Local${prefixes.length}` } });
  prefixes.push(prefix);
  return Template.fromStack(buildApp(app, loadIamActions()).stack).toJSON();
}

// DynamoDB Local checks no signature, but wants an Authorization header of
// the right shape.
async function call(target: string, body: object): Promise<any> {
  const res = await fetch(endpoint!, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-amz-json-1.0',
      'X-Amz-Target': `DynamoDB_20120810.${target}`,
      Authorization:
        'AWS4-HMAC-SHA256 Credential=local/20200101/eu-west-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00',
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${target}: ${res.status} ${text}`);
  return JSON.parse(text);
}

// What CloudFormation does with an AWS::DynamoDB::Table: CreateTable with
// its keys, index, billing and stream, then its TTL. (Point-in-time
// recovery and deletion protection are AWS's alone: DynamoDB Local keeps
// no backups.)
async function createTables(resources: Record<string, any>, change: (p: any) => void = () => {}) {
  for (const resource of Object.values(resources)) {
    if (resource.Type !== 'AWS::DynamoDB::Table') continue;
    const p = structuredClone(resource.Properties);
    change(p);
    await call('CreateTable', {
      TableName: p.TableName,
      KeySchema: p.KeySchema,
      AttributeDefinitions: p.AttributeDefinitions,
      BillingMode: p.BillingMode,
      ...(p.GlobalSecondaryIndexes ? { GlobalSecondaryIndexes: p.GlobalSecondaryIndexes } : {}),
      ...(p.StreamSpecification
        ? { StreamSpecification: { StreamEnabled: true, StreamViewType: p.StreamSpecification.StreamViewType } }
        : {}),
    });
    if (p.TimeToLiveSpecification)
      await call('UpdateTimeToLive', { TableName: p.TableName, TimeToLiveSpecification: p.TimeToLiveSpecification });
  }
}

// The task definition's command, on this machine: a free loopback port for
// 0.0.0.0:2113, the emulator for DynamoDB (its prefix and create_tables=0
// kept), the certificate's folder for /run/indelible/tls.
function localCommand(resources: Record<string, any>, tlsDir: string): string[] {
  const task = Object.values(resources).find((r: any) => r.Type === 'AWS::ECS::TaskDefinition') as any;
  const command: any[] = task.Properties.ContainerDefinitions[0].Command;
  assert.equal(command[0], 'indelible');
  return command.slice(1).map((arg) => {
    if (arg === '0.0.0.0:2113') return '127.0.0.1:0';
    if (typeof arg === 'object') {
      const [, parts] = arg['Fn::Join'];
      const query = String(parts[parts.length - 1]).split('?')[1];
      return `${endpoint!.replace('http://', 'dynamodb://')}?region=${region}&tls=0&${query}`;
    }
    return String(arg).replace('/run/indelible/tls', tlsDir);
  });
}

interface Served {
  readonly child: ChildProcess;
  readonly port: Promise<number>;
  readonly exit: Promise<number | null>;
  output(): string;
}

function serve(args: string[]): Served {
  // Any keys do for the emulator; none of the caller's own reach it.
  const env = {
    ...process.env,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_SESSION_TOKEN: '',
    AWS_EC2_METADATA_DISABLED: 'true',
  };
  const child = spawn(bin!, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const port = new Promise<number>((resolve, reject) => {
    const look = (chunk: Buffer) => {
      text += chunk.toString();
      const found = /listening on https:\/\/127\.0\.0\.1:(\d+)/.exec(text);
      if (found) resolve(Number(found[1]));
    };
    child.stdout!.on('data', look);
    child.stderr!.on('data', look);
    exit.then((code) => reject(new Error(`indelible serve exited (${code}): ${text}`)));
  });
  port.catch(() => {});
  return { child, port, exit, output: () => text };
}

// A request over TLS, trusting only the task's own certificate.
function request(port: number, ca: string, method: string, target: string, body?: object) {
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port, method, path: target, ca, headers: body ? { 'Content-Type': 'application/json' } : {} },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

describe('the stack on DynamoDB Local', { skip: missing }, () => {
  const tlsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'indelible-deploy-tls-'));
  let ca = '';

  before(() => {
    // The image's entrypoint makes the certificate, then runs the command.
    const made = spawnSync(path.join(__dirname, '..', 'docker-entrypoint.sh'), ['true'], {
      env: { ...process.env, INDELIBLE_TLS_DIR: tlsDir },
    });
    assert.equal(made.status, 0, made.stderr?.toString());
    ca = fs.readFileSync(path.join(tlsDir, 'cert.pem'), 'utf8');
  });

  after(async () => {
    fs.rmSync(tlsDir, { recursive: true, force: true });
    const { TableNames } = await call('ListTables', {});
    for (const name of TableNames as string[])
      if (prefixes.some((p) => name.startsWith(p))) await call('DeleteTable', { TableName: name });
  });

  test('indelible serve opens them with create_tables=0, serves /health over TLS, indexes $all', async () => {
    const resources = template(`deploytest${run}_`).Resources;
    await createTables(resources);
    const server = serve(localCommand(resources, tlsDir));
    try {
      const port = await server.port;
      const health = await request(port, ca, 'GET', '/health');
      assert.equal(health.status, 200, JSON.stringify(health.body));
      assert.equal(health.body.status, 'ok');
      const appended = await request(port, ca, 'POST', '/streams/deploy-1', { type: 'Deployed', data: { ok: true } });
      assert.equal(appended.status, 201, JSON.stringify(appended.body));
      // Indexed from the change stream the stack turned on.
      const all = await request(port, ca, 'GET', '/all?from=0&waitMs=20000');
      assert.equal(all.status, 200);
      assert.deepEqual(
        all.body.events.map((e: any) => [e.stream, e.type, e.data]),
        [['deploy-1', 'Deployed', { ok: true }]],
      );
    } finally {
      server.child.kill('SIGTERM');
      await server.exit;
    }
  });

  test('the stack grants what `indelible dynamodb policy` prints, on the same resources', () => {
    const prefix = `deploytest${run}p_`;
    const resources = template(prefix).Resources;
    // (action, what it is granted on): a table by its name's suffix, the
    // listing index, the change stream.
    const pairs = (statements: any[], kind: (resource: any) => string) =>
      statements
        .flatMap((s) =>
          [s.Action].flat().flatMap((a: string) => [s.Resource].flat().map((r: any) => `${a} on ${kind(r)}`)),
        )
        .sort();
    const url = `dynamodb://dynamodb.${region}.amazonaws.com?prefix=${prefix}&create_tables=0`;
    const printed = spawnSync(bin!, ['dynamodb', 'policy', url, '--account', '123456789012']);
    assert.equal(printed.status, 0, printed.stderr?.toString());
    const cli = pairs(JSON.parse(printed.stdout.toString()).Statement, (arn: string) => {
      if (arn.includes('/index/')) return 'index';
      if (arn.includes('/stream/')) return 'stream';
      return arn.split(`:table/${prefix}`)[1];
    });
    const names: Record<string, string> = {};
    for (const [id, r] of Object.entries(resources) as [string, any][])
      if (r.Type === 'AWS::DynamoDB::Table') names[id] = r.Properties.TableName.slice(prefix.length);
    const policy = Object.values(resources).find((r: any) => r.Type === 'AWS::IAM::ManagedPolicy') as any;
    const stack = pairs(policy.Properties.PolicyDocument.Statement, (r: any) => {
      if (r['Fn::Join']) return String(r['Fn::Join'][1][1]).startsWith('/index/') ? 'index' : '?';
      const [id, attribute] = r['Fn::GetAtt'];
      return attribute === 'StreamArn' ? 'stream' : names[id];
    });
    assert.deepEqual(stack, cli);
  });

  // Each thing the stack sets on the events table, left out: the server
  // refuses to start, naming create-tables, rather than run without it.
  const lacking: [string, (p: any) => void][] = [
    ['its change stream', (p) => delete p.StreamSpecification],
    ['TTL', (p) => delete p.TimeToLiveSpecification],
    [
      'the listing index',
      (p) => {
        delete p.GlobalSecondaryIndexes;
        p.AttributeDefinitions = p.AttributeDefinitions.filter((a: any) => a.AttributeName !== 'lk');
      },
    ],
  ];
  for (const [what, change] of lacking)
    test(`an events table made without ${what} stops the server at start`, async () => {
      const resources = template(`deploytest${run}x${prefixes.length}_`).Resources;
      await createTables(resources, (p) => {
        if (p.TableName.endsWith('events')) change(p);
      });
      const server = serve(localCommand(resources, tlsDir));
      const started = await Promise.race([server.port.then(() => true), server.exit.then(() => false)]);
      if (started) {
        server.child.kill('SIGTERM');
        await server.exit;
        assert.fail(`it started on an events table without ${what}: ${server.output()}`);
      }
      assert.notEqual(await server.exit, 0);
      assert.match(server.output(), /create-tables/);
    });
});

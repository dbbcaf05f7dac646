// The synthesized template against what indelible needs (node:test, run by
// scripts/check-deploy-aws.sh): the tables as tables.cc makes them, the task
// role's actions exactly iam-actions.json's server list, the server's
// command, and cdk-nag's rules holding (and able to fail).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { buildApp } from '../lib/app';
import { loadIamActions, tableStatements } from '../lib/policy';

const iamActions = loadIamActions();
// The context `cdk synth` gives the app (feature flags, the default prefix).
const cdkContext = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'cdk.json'), 'utf8')).context;

function synth(context: Record<string, string> = {}) {
  const app = new App({ context: { ...cdkContext, region: 'eu-west-1', ...context } });
  const { stack } = buildApp(app, iamActions);
  return { app, stack, template: Template.fromStack(stack) };
}

type Resource = { Type: string; Properties?: any; DeletionPolicy?: string; UpdateReplacePolicy?: string };

function resources(template: Template, type: string): [string, Resource][] {
  return Object.entries(template.findResources(type) as Record<string, Resource>);
}

function tableNamed(template: Template, name: string): Resource {
  const found = resources(template, 'AWS::DynamoDB::Table').filter(([, r]) => r.Properties.TableName === name);
  assert.equal(found.length, 1, `one table ${name}`);
  return found[0][1];
}

// Every action of every IAM statement in `doc`, as a list.
function actionsOf(doc: any): string[] {
  return doc.Statement.flatMap((s: any) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
}

const { template } = synth();

describe('tables', () => {
  const shared = {
    Tags: [{ Key: 'indelible:store', Value: 'indelible_' }],
    BillingMode: 'PAY_PER_REQUEST',
    PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    DeletionProtectionEnabled: true,
  };

  test('events: stream/version keys, the change stream, TTL, the listing index', () => {
    const table = tableNamed(template, 'indelible_events');
    assert.deepEqual(table.Properties, {
      ...shared,
      TableName: 'indelible_events',
      KeySchema: [
        { AttributeName: 'stream', KeyType: 'HASH' },
        { AttributeName: 'version', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: 'stream', AttributeType: 'S' },
        { AttributeName: 'version', AttributeType: 'N' },
        { AttributeName: 'lk', AttributeType: 'S' },
      ],
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
      TimeToLiveSpecification: { AttributeName: 'expires_at', Enabled: true },
      GlobalSecondaryIndexes: [
        {
          IndexName: 'streams_by_name',
          KeySchema: [
            { AttributeName: 'lk', KeyType: 'HASH' },
            { AttributeName: 'stream', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'KEYS_ONLY' },
        },
      ],
    });
  });

  test('all: block/position keys, numbers, nothing else', () => {
    assert.deepEqual(tableNamed(template, 'indelible_all').Properties, {
      ...shared,
      TableName: 'indelible_all',
      KeySchema: [
        { AttributeName: 'block', KeyType: 'HASH' },
        { AttributeName: 'position', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: 'block', AttributeType: 'N' },
        { AttributeName: 'position', AttributeType: 'N' },
      ],
    });
  });

  test('checkpoints: a name key', () => {
    assert.deepEqual(tableNamed(template, 'indelible_checkpoints').Properties, {
      ...shared,
      TableName: 'indelible_checkpoints',
      KeySchema: [{ AttributeName: 'name', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'name', AttributeType: 'S' }],
    });
  });

  test('tagged with the store, for its bill', () => {
    for (const [id, table] of resources(template, 'AWS::DynamoDB::Table'))
      assert.deepEqual(table.Properties.Tags, [{ Key: 'indelible:store', Value: 'indelible_' }], id);
  });

  test('kept when the stack is deleted or a table replaced', () => {
    const tables = resources(template, 'AWS::DynamoDB::Table');
    assert.equal(tables.length, 3);
    for (const [id, table] of tables) {
      assert.equal(table.DeletionPolicy, 'Retain', id);
      assert.equal(table.UpdateReplacePolicy, 'Retain', id);
    }
  });

  test('the prefix comes from the context, and a bad one is refused', () => {
    const shop = synth({ prefix: 'shop_' }).template;
    const names = resources(shop, 'AWS::DynamoDB::Table').map(([, r]) => r.Properties.TableName).sort();
    assert.deepEqual(names, ['shop_all', 'shop_checkpoints', 'shop_events']);
    assert.throws(() => synth({ prefix: 'shop/' }), /may hold only/);
  });
});

describe('the server policy', () => {
  // The role ECS gives the container (the task definition's TaskRoleArn).
  const [[, taskDefinition]] = resources(template, 'AWS::ECS::TaskDefinition');
  const taskRoleId: string = taskDefinition.Properties.TaskRoleArn['Fn::GetAtt'][0];
  const taskRole = template.toJSON().Resources[taskRoleId];

  // Its actions: the managed policies it holds, and any inline or attached one.
  function taskRoleActions(): string[] {
    const managed = (taskRole.Properties.ManagedPolicyArns ?? []).map((arn: any) => {
      assert.ok(arn.Ref, `only this stack's managed policies: ${JSON.stringify(arn)}`);
      return template.toJSON().Resources[arn.Ref].Properties.PolicyDocument;
    });
    const inline = (taskRole.Properties.Policies ?? []).map((p: any) => p.PolicyDocument);
    const attached = resources(template, 'AWS::IAM::Policy')
      .filter(([, p]) => p.Properties.Roles.some((r: any) => r.Ref === taskRoleId))
      .map(([, p]) => p.Properties.PolicyDocument);
    return [...managed, ...inline, ...attached].flatMap(actionsOf);
  }

  test("the task role's actions are iam-actions.json's server list, each once", () => {
    const actions = taskRoleActions();
    assert.deepEqual([...actions].sort(), [...new Set(iamActions.server)].sort());
  });

  test('no action only creating the tables needs', () => {
    const adminOnly = iamActions.admin.filter((a) => !iamActions.server.includes(a));
    assert.ok(adminOnly.includes('dynamodb:CreateTable'), 'the admin list names CreateTable');
    const granted = new Set(taskRoleActions());
    assert.deepEqual(
      adminOnly.filter((a) => granted.has(a)),
      [],
    );
  });

  test('nothing in the stack grants dynamodb:* or any DynamoDB action on *', () => {
    const documents = [
      ...resources(template, 'AWS::IAM::Policy').map(([, p]) => p.Properties.PolicyDocument),
      ...resources(template, 'AWS::IAM::ManagedPolicy').map(([, p]) => p.Properties.PolicyDocument),
      ...resources(template, 'AWS::IAM::Role').flatMap(([, r]) =>
        (r.Properties.Policies ?? []).map((p: any) => p.PolicyDocument),
      ),
    ];
    assert.ok(documents.length > 0);
    for (const doc of documents)
      for (const statement of doc.Statement) {
        const actions: string[] = Array.isArray(statement.Action) ? statement.Action : [statement.Action];
        for (const action of actions) assert.ok(!/^(\*|dynamodb:.*\*.*)$/.test(action), `grants ${action}`);
        if (actions.some((a) => a.startsWith('dynamodb:'))) {
          const targets = Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource];
          for (const target of targets) assert.notEqual(target, '*', `${actions.join(',')} on *`);
        }
      }
  });

  test('each action on its own resources: tables, the listing index, the stream', () => {
    const [[, policy]] = resources(template, 'AWS::IAM::ManagedPolicy');
    const statements = policy.Properties.PolicyDocument.Statement;
    const bySid = Object.fromEntries(statements.map((s: any) => [s.Sid, s]));
    const tableArn = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
    const ids = Object.fromEntries(
      resources(template, 'AWS::DynamoDB::Table').map(([id, r]) => [r.Properties.TableName, id]),
    );
    const tables = ['indelible_events', 'indelible_all', 'indelible_checkpoints'].map((n) => tableArn(ids[n]));
    // In any order (@aws-cdk/aws-iam:minimizePolicies sorts them).
    const sorted = (list: unknown[]) => list.map((r) => JSON.stringify(r)).sort();
    assert.deepEqual(sorted(bySid.Tables.Resource), sorted(tables));
    assert.deepEqual(bySid.ChangeStream.Resource, { 'Fn::GetAtt': [ids.indelible_events, 'StreamArn'] });
    assert.deepEqual(
      sorted(bySid.TablesAndIndex.Resource),
      sorted([...tables, { 'Fn::Join': ['', [tableArn(ids.indelible_events), '/index/streams_by_name']] }]),
    );
    const list = (x: string | string[]) => (Array.isArray(x) ? x : [x]);
    assert.deepEqual(list(bySid.ChangeStream.Action), [...iamActions.stream].sort());
    assert.deepEqual(list(bySid.TablesAndIndex.Action), [...iamActions.index].sort());
  });

  test('an action IAM grants only on * is refused, not widened', () => {
    const { stack: other } = synth({ stackName: 'Other' });
    const tables = {
      events: other.node.findChild('EventsTable'),
      all: other.node.findChild('AllTable'),
      checkpoints: other.node.findChild('CheckpointsTable'),
    } as any;
    assert.throws(() => tableStatements(tables, ['dynamodb:ListStreams'], iamActions), /cannot be scoped/);
    assert.throws(() => tableStatements(tables, ['dynamodb:Get*'], iamActions), /cannot be scoped/);
  });
});

describe('the service', () => {
  test('indelible serve: beyond loopback with TLS, the stack-made tables only checked', () => {
    template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      RequiresCompatibilities: ['FARGATE'],
      ContainerDefinitions: [
        Match.objectLike({
          Command: [
            'indelible',
            'serve',
            '--listen',
            '0.0.0.0:2113',
            '--store',
            {
              'Fn::Join': [
                '',
                ['dynamodb://dynamodb.eu-west-1.', { Ref: 'AWS::URLSuffix' }, '?prefix=indelible_&create_tables=0'],
              ],
            },
            '--tls-cert',
            '/run/indelible/tls/cert.pem',
            '--tls-key',
            '/run/indelible/tls/key.pem',
          ],
          LogConfiguration: Match.objectLike({ LogDriver: 'awslogs' }),
          ReadonlyRootFilesystem: true,
          PortMappings: [{ ContainerPort: 2113, Protocol: 'tcp' }],
        }),
      ],
    });
  });

  test('private subnets, behind an HTTPS listener, health on /health', () => {
    template.hasResourceProperties('AWS::ECS::Service', {
      LaunchType: 'FARGATE',
      NetworkConfiguration: { AwsvpcConfiguration: Match.objectLike({ AssignPublicIp: 'DISABLED' }) },
    });
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::Listener', {
      Port: 443,
      Protocol: 'HTTPS',
      Certificates: [{ CertificateArn: { Ref: 'CertificateArn' } }],
    });
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::TargetGroup', {
      Port: 2113,
      Protocol: 'HTTPS',
      HealthCheckPath: '/health',
      HealthCheckProtocol: 'HTTPS',
      Matcher: { HttpCode: '200' },
    });
    for (const name of ['ImageRepository', 'ImageTag', 'CertificateArn', 'ClientCidr', 'DesiredCount'])
      template.hasParameter(name, Match.anyValue());
  });
});

describe('cdk-nag', () => {
  test('the AwsSolutions rules pass, each exception acknowledged with a reason', () => {
    const { app } = synth({ stackName: 'Checked' });
    const assembly = app.synth();
    const acknowledged = assembly.getStackArtifact('Checked').findMetadataByType('aws:cdk:acknowledged-rules')
      .flatMap((entry) => Object.entries(entry.data as unknown as Record<string, string>))
      .filter(([id]) => id.includes('AwsSolutions-'));
    assert.deepEqual(acknowledged.map(([id]) => id.replace(/^Annotation::/, '')).sort(), [
      'AwsSolutions-EC23',
      'AwsSolutions-IAM5[Resource::*]',
      'AwsSolutions-S1',
    ]);
    for (const [id, reason] of acknowledged) assert.ok(reason.length >= 40, `${id} has a reason`);
  });

  test('a finding fails the synth', () => {
    const app = new App({ context: { ...cdkContext, region: 'eu-west-1', stackName: 'Failing' } });
    const { stack } = buildApp(app, iamActions);
    new s3.Bucket(stack as Stack, 'Unlogged', { enforceSSL: false });
    // CDK prints the report on stderr: keep it for the assertion instead.
    const printed: string[] = [];
    const print = console.error;
    console.error = (...args: unknown[]) => printed.push(args.join(' '));
    try {
      assert.throws(() => app.synth(), /Validation failed/);
    } finally {
      console.error = print;
    }
    assert.match(printed.join('\n'), /Failing\/Unlogged\/Resource[\s\S]*AwsSolutions-S10/);
  });
});

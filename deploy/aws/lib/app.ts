// The app as `cdk synth` builds it (bin/indelible.ts) and the tests build
// it: the stack, with cdk-nag's AwsSolutions rules over every construct (a
// policy validation plugin: a finding not acknowledged with its reason fails
// the synth).
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { IndelibleStack } from './indelible-stack';
import { IamActions, loadIamActions } from './policy';
import { DEFAULT_PREFIX } from './tables';

export interface Built {
  readonly app: App;
  readonly stack: IndelibleStack;
}

// Context (cdk -c KEY=VALUE, or cdk.json): region (default: the CLI's, from
// AWS_REGION or the profile: CDK_DEFAULT_REGION), prefix (the tables'
// prefix, default indelible_), stackName (default Indelible), cpu and
// memoryMiB (the Fargate task's size). The stack is made for one region:
// the load balancer's access logs are granted to that region's log
// delivery. The account stays open: the synth needs no credentials.
export function buildApp(app: App = new App(), iamActions: IamActions = loadIamActions()): Built {
  const context = (key: string): string | undefined => {
    const value: unknown = app.node.tryGetContext(key);
    return value === undefined ? undefined : String(value);
  };
  const number = (key: string): number | undefined => {
    const value = context(key);
    if (value === undefined) return undefined;
    if (!/^[0-9]+$/.test(value)) throw new Error(`context ${key}=${value} is not a number`);
    return Number(value);
  };
  const region = context('region') ?? process.env.CDK_DEFAULT_REGION;
  if (region === undefined || !/^[a-z]{2}(-[a-z]+)+-[0-9]+$/.test(region))
    throw new Error(
      `the stack needs a region (${region ?? 'none'} given): cdk synth -c region=eu-west-1, or AWS_REGION`,
    );
  const stack = new IndelibleStack(app, context('stackName') ?? 'Indelible', {
    env: { region },
    tablePrefix: context('prefix') ?? DEFAULT_PREFIX,
    iamActions,
    cpu: number('cpu'),
    memoryMiB: number('memoryMiB'),
    description: 'indelible: DynamoDB tables, IAM policy, ECS Fargate service (deploy/aws)',
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  return { app, stack };
}

// One indelible deployment on AWS (docs/DEPLOY-AWS.md): the store's
// DynamoDB tables, the server's least-privilege policy, and `indelible
// serve` on ECS Fargate in the private subnets of a VPC of its own, behind
// an Application Load Balancer that terminates HTTPS with an ACM
// certificate.
//
//   client --HTTPS (ACM certificate)--> ALB --HTTPS (the task's own
//   certificate)--> indelible serve :2113 --> DynamoDB, DynamoDB Streams
//
// The server keeps its defaults for a listener beyond loopback
// (docs/SECURITY.md, "Secure defaults"): TLS on its port and credentials on
// every route but /health. The load balancer does not verify a target's
// certificate, so the image's entrypoint makes a self-signed one at start
// (deploy/aws/docker-entrypoint.sh); the hop inside the VPC is encrypted
// all the same.
import { CfnOutput, CfnParameter, Duration, RemovalPolicy, Stack, StackProps, Tags, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecr from 'aws-cdk-lib/aws-ecr';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { IamActions, tableStatements } from './policy';
import { storeTables } from './tables';

export const SERVER_PORT = 2113;
// Where docker-entrypoint.sh writes the certificate the load balancer sees.
export const TLS_DIR = '/run/indelible/tls';

export interface IndelibleStackProps extends StackProps {
  // Put before every table name (the store URL's prefix=).
  readonly tablePrefix: string;
  readonly iamActions: IamActions;
  // Fargate task size: CPU units (1024 = one vCPU) and MiB, a valid pair.
  readonly cpu?: number;
  readonly memoryMiB?: number;
}

export class IndelibleStack extends Stack {
  constructor(scope: Construct, id: string, props: IndelibleStackProps) {
    super(scope, id, props);
    const prefix = props.tablePrefix;
    // On every resource that takes tags: a cost allocation tag shows what
    // this store costs.
    Tags.of(this).add('indelible:store', prefix);

    const imageRepository = new CfnParameter(this, 'ImageRepository', {
      type: 'String',
      description: 'ECR repository (its name, in this account and region) holding the indelible image',
      allowedPattern: '^[a-z0-9][a-z0-9._/-]*$',
    });
    const imageTag = new CfnParameter(this, 'ImageTag', {
      type: 'String',
      description: 'The image tag to run (one per release: a new tag rolls the service)',
      allowedPattern: '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$',
    });
    const certificateArn = new CfnParameter(this, 'CertificateArn', {
      type: 'String',
      description: "ARN of the ACM certificate the load balancer's HTTPS listener presents",
      allowedPattern: '^arn:aws[a-z-]*:acm:[a-z0-9-]+:[0-9]{12}:certificate/[A-Za-z0-9-]+$',
    });
    const clientCidr = new CfnParameter(this, 'ClientCidr', {
      type: 'String',
      description:
        'The addresses that may reach the load balancer on 443 (0.0.0.0/0 for anyone: ' +
        'every route but /health then still needs credentials)',
      allowedPattern: '^[0-9]{1,3}(\\.[0-9]{1,3}){3}/[0-9]{1,2}$',
    });
    const desiredCount = new CfnParameter(this, 'DesiredCount', {
      type: 'Number',
      description: 'How many servers to run (one of them runs the $all indexer at a time)',
      default: 2,
      minValue: 1,
      maxValue: 32,
    });

    const tables = storeTables(this, prefix);

    // The server's permissions, as a managed policy so that an operator
    // can attach the same one to the role that runs `indelible keys create`
    // or `indelible rebuild-index` against these tables.
    const serverPolicy = new iam.ManagedPolicy(this, 'ServerPolicy', {
      description: `DynamoDB actions of indelible serve (create_tables=0) on the ${prefix}* tables`,
      statements: tableStatements(tables, props.iamActions.server, props.iamActions),
    });

    // Two zones; tasks in private subnets reach AWS through one NAT gateway
    // (one per zone would survive a zone's outage, at the price of another
    // gateway), and DynamoDB through a gateway endpoint (no NAT charge for
    // table traffic; the change stream's host goes through the NAT).
    const vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: 1,
      subnetConfiguration: [
        { name: 'public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24 },
        { name: 'private', subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 24 },
      ],
      gatewayEndpoints: { DynamoDB: { service: ec2.GatewayVpcEndpointAwsService.DYNAMODB } },
      flowLogs: {
        rejected: {
          destination: ec2.FlowLogDestination.toCloudWatchLogs(
            new logs.LogGroup(this, 'FlowLogs', {
              retention: logs.RetentionDays.ONE_MONTH,
              removalPolicy: RemovalPolicy.DESTROY,
            }),
          ),
          trafficType: ec2.FlowLogTrafficType.REJECT,
        },
      },
    });

    const cluster = new ecs.Cluster(this, 'Cluster', {
      vpc,
      containerInsightsV2: ecs.ContainerInsights.ENABLED,
    });

    const taskRole = new iam.Role(this, 'TaskRole', {
      assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com'),
      description: 'indelible serve: the DynamoDB tables, nothing else',
      managedPolicies: [serverPolicy],
    });
    const task = new ecs.FargateTaskDefinition(this, 'Task', {
      cpu: props.cpu ?? 1024,
      memoryLimitMiB: props.memoryMiB ?? 2048,
      taskRole,
      runtimePlatform: {
        cpuArchitecture: ecs.CpuArchitecture.X86_64,
        operatingSystemFamily: ecs.OperatingSystemFamily.LINUX,
      },
      volumes: [{ name: 'tls' }],
    });
    const logGroup = new logs.LogGroup(this, 'ServerLogs', {
      retention: logs.RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const repository = ecr.Repository.fromRepositoryName(this, 'Repository', imageRepository.valueAsString);
    // The store on this region's DynamoDB; create_tables=0: the tables are
    // this stack's, the server only checks them (and needs no CreateTable).
    const storeUrl = `dynamodb://dynamodb.${this.region}.${this.urlSuffix}?prefix=${prefix}&create_tables=0`;
    const container = task.addContainer('indelible', {
      image: ecs.ContainerImage.fromEcrRepository(repository, imageTag.valueAsString),
      command: [
        'indelible',
        'serve',
        '--listen',
        `0.0.0.0:${SERVER_PORT}`,
        '--store',
        storeUrl,
        '--tls-cert',
        `${TLS_DIR}/cert.pem`,
        '--tls-key',
        `${TLS_DIR}/key.pem`,
      ],
      portMappings: [{ containerPort: SERVER_PORT, protocol: ecs.Protocol.TCP }],
      logging: ecs.LogDrivers.awsLogs({ logGroup, streamPrefix: 'indelible' }),
      readonlyRootFilesystem: true,
      // SIGTERM stops the server cleanly (the indexer hands its lease back).
      stopTimeout: Duration.seconds(30),
    });
    // The execution role (image pull, log writes) is CDK's: it grants the
    // repository's pull actions on the repository, and ecr:GetAuthorizationToken,
    // which IAM only grants on "*".
    Validations.of(task.obtainExecutionRole()).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'ecr:GetAuthorizationToken has no resource-level permissions (IAM grants it on * only); ' +
        'the execution role needs it to pull the image. Every other action of the role is ' +
        'scoped to the repository and the log group.',
    });
    container.addMountPoints({ sourceVolume: 'tls', containerPath: TLS_DIR, readOnly: false });

    const albSecurityGroup = new ec2.SecurityGroup(this, 'LoadBalancerSecurityGroup', {
      vpc,
      description: 'indelible load balancer: HTTPS from ClientCidr',
      allowAllOutbound: false,
    });
    albSecurityGroup.addIngressRule(ec2.Peer.ipv4(clientCidr.valueAsString), ec2.Port.tcp(443), 'HTTPS');
    Validations.of(albSecurityGroup.node.defaultChild!).acknowledge({
      id: 'AwsSolutions-EC23',
      reason:
        'The addresses allowed on 443 are the ClientCidr parameter, chosen at deploy time, ' +
        'which the rule cannot read. 0.0.0.0/0 is a deliberate choice there for a public API: ' +
        'TLS ends at the listener and the server requires credentials on every route but /health.',
    });
    const serviceSecurityGroup = new ec2.SecurityGroup(this, 'ServiceSecurityGroup', {
      vpc,
      description: 'indelible serve: its port from the load balancer only',
      allowAllOutbound: true,
    });
    serviceSecurityGroup.addIngressRule(albSecurityGroup, ec2.Port.tcp(SERVER_PORT), 'from the load balancer');
    albSecurityGroup.addEgressRule(serviceSecurityGroup, ec2.Port.tcp(SERVER_PORT), 'to indelible serve');

    const service = new ecs.FargateService(this, 'Service', {
      cluster,
      taskDefinition: task,
      desiredCount: desiredCount.valueAsNumber,
      vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS },
      securityGroups: [serviceSecurityGroup],
      assignPublicIp: false,
      circuitBreaker: { rollback: true },
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
    });

    // The load balancer's access logs (SSE-S3: the only encryption they
    // accept), kept 90 days.
    const accessLogs = new s3.Bucket(this, 'AccessLogs', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const loadBalancer = new elbv2.ApplicationLoadBalancer(this, 'LoadBalancer', {
      vpc,
      internetFacing: true,
      securityGroup: albSecurityGroup,
      vpcSubnets: { subnetType: ec2.SubnetType.PUBLIC },
      dropInvalidHeaderFields: true,
    });
    loadBalancer.logAccessLogs(accessLogs, 'alb');
    const listener = loadBalancer.addListener('Https', {
      port: 443,
      protocol: elbv2.ApplicationProtocol.HTTPS,
      sslPolicy: elbv2.SslPolicy.RECOMMENDED_TLS,
      certificates: [elbv2.ListenerCertificate.fromArn(certificateArn.valueAsString)],
      open: false,
    });
    listener.addTargets('Server', {
      port: SERVER_PORT,
      protocol: elbv2.ApplicationProtocol.HTTPS,
      targets: [service],
      healthCheck: {
        path: '/health',
        protocol: elbv2.Protocol.HTTPS,
        healthyHttpCodes: '200',
        interval: Duration.seconds(15),
        healthyThresholdCount: 2,
        unhealthyThresholdCount: 3,
      },
      // Subscriptions (SSE) are long requests: give them time to end on a
      // deploy before the target is dropped.
      deregistrationDelay: Duration.seconds(30),
    });

    Validations.of(accessLogs.node.defaultChild!).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'This bucket holds the access logs of the load balancer; logging access to it would ' +
        'need another bucket, whose own logs would need another.',
    });

    new CfnOutput(this, 'Url', {
      value: `https://${loadBalancer.loadBalancerDnsName}`,
      description: "Point the certificate's name at this host (CNAME or alias)",
    });
    new CfnOutput(this, 'StoreUrl', { value: storeUrl, description: "The servers' store URL (for indelible --data)" });
    new CfnOutput(this, 'ServerPolicyArn', { value: serverPolicy.managedPolicyArn });
    new CfnOutput(this, 'LogGroup', { value: logGroup.logGroupName });
    new CfnOutput(this, 'ClusterName', { value: cluster.clusterName });
    new CfnOutput(this, 'ServiceName', { value: service.serviceName });
    new CfnOutput(this, 'EventsTableName', { value: tables.events.tableName });
  }
}

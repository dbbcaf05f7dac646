#!/usr/bin/env bash
# The AWS deployment (deploy/aws, docs/DEPLOY-AWS.md) checked without an AWS
# account:
#   1. npm ci (only when package-lock.json changed) and the type check;
#   2. `cdk synth` of the app for one region under cdk-nag's AwsSolutions
#      rules: a finding not acknowledged with its reason fails the synth;
#   3. the tests of deploy/aws/test (node:test): the template's tables as
#      indelible makes them, the task role's actions exactly
#      iam-actions.json's server list, nothing on dynamodb:*; and the
#      stack's tables made on DynamoDB Local as CloudFormation would make
#      them, opened by the real `indelible serve` with the task's command
#      (create_tables=0, TLS from the image's entrypoint);
#   4. one line: resources, and what cdk-nag found and what was acknowledged.
# No credentials, no network besides the npm registry: the CDK CLI's notices,
# version check and telemetry are off.
#   INDELIBLE_BIN            the indelible command (default build/dev/src/cli/indelible);
#                            without it the DynamoDB Local tests are skipped, saying
#                            so (a failure under CI=true)
#   INDELIBLE_DEPLOY_REGION  the region to synthesize for (default eu-west-1)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin=${INDELIBLE_BIN:-$root/build/dev/src/cli/indelible}
case "$bin" in /*) ;; *) bin="$root/$bin" ;; esac
cd deploy/aws
started=$SECONDS
stages=""
took() {
  stages+="${stages:+, }$1 $((SECONDS - mark)) s"
  mark=$SECONDS
}
mark=$SECONDS
fail() {
  echo "check-deploy-aws: FAILED: $*" >&2
  exit 1
}
[[ -f iam-actions.json ]] ||
  fail "deploy/aws/iam-actions.json is missing (indelible dynamodb policy --actions prints it)"

if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  echo "== check-deploy-aws: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  took "npm ci"
fi

echo "== check-deploy-aws: tsc --noEmit"
npx --no-install tsc --noEmit
took tsc

echo "== check-deploy-aws: cdk synth (cdk-nag AwsSolutions)"
export CDK_DISABLE_CLI_TELEMETRY=true CDK_DISABLE_VERSION_CHECK=true
out=$(mktemp -d /tmp/indelible-cdk.XXXXXX)
ddb=$(mktemp -d /tmp/indelible-deploy-ddb.XXXXXX)
trap 'rm -rf "$out"; "$root/scripts/dynamodb.sh" stop "$ddb" || true; rm -rf "$ddb"' EXIT
region=${INDELIBLE_DEPLOY_REGION:-eu-west-1}
npx --no-install cdk synth --quiet --no-notices -c "region=$region" -o "$out" ||
  fail "cdk synth (a cdk-nag finding prints above as ERROR with the construct's path)"
took synth

if [[ -x $bin ]]; then
  export INDELIBLE_BIN=$bin
  INDELIBLE_DYNAMODB_ENDPOINT=$(INDELIBLE_DYNAMODB_IN_MEMORY=1 "$root/scripts/dynamodb.sh" start local "$ddb")
  export INDELIBLE_DYNAMODB_ENDPOINT
  took "DynamoDB Local start"
else
  [[ ${CI:-} != true ]] || fail "no indelible command at $bin (build it, or set INDELIBLE_BIN)"
  echo "check-deploy-aws: no indelible command at $bin: the DynamoDB Local tests are SKIPPED" >&2
fi

echo "== check-deploy-aws: the template's tests, and the stack's tables on DynamoDB Local"
node --import tsx --test --test-reporter=spec --test-concurrency=1 test/*.test.ts
took tests

node - "$out" <<'EOF'
const fs = require('node:fs');
const path = require('node:path');
const out = process.argv[2];
const read = (name) => JSON.parse(fs.readFileSync(path.join(out, name), 'utf8'));
const template = read('Indelible.template.json');
const violations = read('validation-report.json').pluginReports.flatMap((p) => p.violations ?? []);
const errors = violations.filter((v) => v.severity === 'error').length;
const acknowledged = Object.values(read('Indelible.metadata.json'))
  .flat()
  .filter((e) => e.type === 'aws:cdk:acknowledged-rules')
  .flatMap((e) => Object.keys(e.data))
  .filter((id) => id.includes('AwsSolutions-'))
  .map((id) => id.replace(/^Annotation::AwsSolutions-/, ''))
  .sort();
const tables = Object.values(template.Resources).filter((r) => r.Type === 'AWS::DynamoDB::Table');
console.log(
  `check-deploy-aws: ok: ${Object.keys(template.Resources).length} resources (${tables.length} tables), ` +
    `cdk-nag AwsSolutions: ${errors} errors, ${violations.length - errors} warnings, ` +
    `${acknowledged.length} acknowledged with reasons (${acknowledged.join(', ')})`,
);
EOF
echo "check-deploy-aws: $((SECONDS - started)) s ($stages)"

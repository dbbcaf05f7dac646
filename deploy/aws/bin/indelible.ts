#!/usr/bin/env node
// The CDK app's entry point (cdk.json runs it with tsx): docs/DEPLOY-AWS.md.
import { buildApp } from '../lib/app';

buildApp().app.synth();

// src/node-types.ts declares the little of Node's modules the node sender
// uses, so that the package builds without @types/node. This build has
// Node's types: these assignments fail to compile if the declarations ever
// stop matching the real modules.

import * as http from 'node:http';
import * as https from 'node:https';
import * as buffer from 'node:buffer';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NodeAgent, NodeBufferModule, NodeClientRequest, NodeHttpModule, NodeIncomingMessage, NodeRequestOptions } from '../src/node-types.js';

// What the modules give, as the sender reads it.
const agents: Array<NodeHttpModule['Agent']> = [http.Agent, https.Agent];
const made: NodeAgent = new http.Agent({ keepAlive: true });
const buffers: NodeBufferModule = buffer;
const answer = (res: http.IncomingMessage): NodeIncomingMessage => res;
const sent = (req: http.ClientRequest): NodeClientRequest => req;
// What the sender passes, as the modules take it (`agent` being one `Agent` made).
const options = (o: Omit<NodeRequestOptions, 'agent'> & { agent: http.Agent }): http.RequestOptions & https.RequestOptions => o;

test("the node sender's declarations of node:http, node:https and node:buffer fit the real modules (a compile-time check)", () => {
  assert.equal(agents.length, 2);
  assert.equal(typeof made.destroy, 'function');
  made.destroy();
  assert.equal(buffers.Buffer.byteLength('é'), 2);
  assert.equal([answer, sent, options].every((f) => typeof f === 'function'), true);
});

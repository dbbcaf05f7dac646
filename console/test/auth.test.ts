import assert from 'node:assert/strict';
import { test } from 'node:test';
import { categoryOf, may, mayEverywhere, maySomewhere, type WhoAmI } from '../src/auth';

const kReader: WhoAmI = {
  authentication: true,
  principal: 'key:r',
  grants: { admin: false, rules: [{ allow: ['read', 'subscribe'] }] },
};
const kOrders: WhoAmI = {
  authentication: true,
  principal: 'key:o',
  grants: {
    admin: false,
    rules: [
      { allow: ['write', 'consumers'], categories: ['orders'] },
      { allow: ['consumers', 'metrics'], prefixes: ['billing.'] },
    ],
  },
};

test('category is the part before the first - or /', () => {
  assert.equal(categoryOf('orders-1'), 'orders');
  assert.equal(categoryOf('BANK/1-2'), 'BANK');
  assert.equal(categoryOf('plain'), 'plain');
});

test('without authentication, or as admin, everything is allowed', () => {
  assert.ok(may({ authentication: false }, 'write', '$parked-g'));
  assert.ok(may({ authentication: true, grants: { admin: true, rules: [] } }, 'consumers', '$x'));
});

test('a reader may not write, manage consumers or read metrics', () => {
  assert.equal(maySomewhere(kReader, 'write'), false);
  assert.equal(may(kReader, 'consumers', 'g'), false);
  assert.equal(mayEverywhere(kReader, 'metrics'), false);
  assert.ok(may(kReader, 'read', 'anything'));
});

test('categories and prefixes cover group names like stream names', () => {
  assert.ok(may(kOrders, 'consumers', 'orders-projector'));
  assert.ok(may(kOrders, 'consumers', 'billing.mail'));
  assert.equal(may(kOrders, 'consumers', 'shipping'), false);
  assert.ok(maySomewhere(kOrders, 'write'));
  assert.equal(may(kOrders, 'write', '$parked-orders'), false); // $ names: admin only
  assert.equal(mayEverywhere(kOrders, 'metrics'), false); // only from a rule about every stream
});

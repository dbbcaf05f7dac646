import assert from 'node:assert/strict';
import { test } from 'node:test';
import { labelValues, parseSamples, parseScrape, quantile, rate, value } from '../src/metrics';

const kBefore = `# HELP indelible_appends_total appends
# TYPE indelible_appends_total counter
indelible_appends_total 10
indelible_append_duration_seconds_bucket{le="0.001"} 2
indelible_append_duration_seconds_bucket{le="0.002"} 4
indelible_append_duration_seconds_bucket{le="0.005"} 4
indelible_append_duration_seconds_bucket{le="+Inf"} 4
indelible_consumer_lag_events{group="a"} 3
indelible_consumer_lag_events{group="b.c"} 0
`;
// 100 more appends: 50 in (0, 1 ms], 40 in (1, 2 ms], 10 in (2, 5 ms].
const kAfter = `indelible_appends_total 110
indelible_append_duration_seconds_bucket{le="0.001"} 52
indelible_append_duration_seconds_bucket{le="0.002"} 94
indelible_append_duration_seconds_bucket{le="0.005"} 104
indelible_append_duration_seconds_bucket{le="+Inf"} 104
`;

test('parses names, labels and special values', () => {
  const samples = parseSamples('x{a="1",b="q\\"uote"} +Inf\n# comment\ny 2.5\n\nbad line here');
  assert.deepEqual(samples, [
    { name: 'x', labels: { a: '1', b: 'q"uote' }, value: Infinity },
    { name: 'y', labels: {}, value: 2.5 },
  ]);
});

test('rate is per second and null when a counter went down', () => {
  const a = parseScrape(kBefore, 0);
  const b = parseScrape(kAfter, 2000);
  assert.equal(rate(a, b, 'indelible_appends_total'), 50);
  assert.equal(rate(b, a, 'indelible_appends_total'), null);
  assert.equal(rate(a, b, 'missing_total'), null);
});

test('quantiles come from bucket deltas, interpolated inside a bucket', () => {
  const a = parseScrape(kBefore, 0);
  const b = parseScrape(kAfter, 1000);
  assert.equal(quantile(a, b, 'indelible_append_duration_seconds', 0.5), 0.001);
  const p99 = quantile(a, b, 'indelible_append_duration_seconds', 0.99)!;
  assert.ok(Math.abs(p99 - 0.0047) < 1e-12, String(p99)); // 9 of the 10 in (2, 5] ms
  assert.equal(quantile(b, b, 'indelible_append_duration_seconds', 0.5), null); // nothing observed
});

test('label values and labelled samples', () => {
  const a = parseScrape(kBefore, 0);
  assert.deepEqual(labelValues(a, 'indelible_consumer_lag_events', 'group'), ['a', 'b.c']);
  assert.equal(value(a, 'indelible_consumer_lag_events', { group: 'a' }), 3);
});

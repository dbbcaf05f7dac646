// Deletes the tables whose names start with PREFIX on the emulator at
// ENDPOINT (http://127.0.0.1:PORT): what a test made, once it is done with
// it (tests/testutil/dynamodb_server.h). DynamoDB Local slows down as tables
// pile up on the instance ctest shares: it runs a TTL pass over every table
// with TTL on, and its index jobs wait behind those passes.
//
//   node drop-tables.mjs ENDPOINT PREFIX
const [endpoint, prefix] = process.argv.slice(2);
if (!endpoint || !prefix) {
  console.error('usage: drop-tables.mjs ENDPOINT PREFIX');
  process.exit(2);
}

// Neither emulator checks signatures, but both want an Authorization header
// of the right shape.
async function call(target, body) {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-amz-json-1.0',
      'X-Amz-Target': `DynamoDB_20120810.${target}`,
      'X-Amz-Date': '20200101T000000Z',
      Authorization:
        'AWS4-HMAC-SHA256 Credential=test/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00',
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${target}: ${res.status} ${text}`);
  return JSON.parse(text);
}

const names = [];
let start;
do {
  const page = await call('ListTables', start ? { ExclusiveStartTableName: start } : {});
  names.push(...page.TableNames.filter((name) => name.startsWith(prefix)));
  start = page.LastEvaluatedTableName;
} while (start);
for (const name of names) {
  try {
    await call('DeleteTable', { TableName: name });
  } catch (e) {
    // Already gone (another clean-up), or in use: the test is over anyway.
    if (!String(e.message).includes('ResourceNotFoundException')) console.error(e.message);
  }
}

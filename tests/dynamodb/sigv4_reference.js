// Signs requests with @smithy/signature-v4, the AWS SDK for JavaScript's
// signer, as an implementation independent of ours (sigv4_test.cc compares).
// Run through `scripts/dynamodb.sh node`, which puts the pinned packages on
// NODE_PATH.
//
// Input (the file named by argv[2]): a JSON array of
//   {method, hostname, port?, path, query: {name: value}, headers: {name: value},
//    body, region, service, accessKeyId, secretAccessKey, sessionToken?,
//    amzDate: "20150830T123600Z"}
// Output (stdout): a JSON array of the signed requests' headers, lowercase names.
'use strict';
const fs = require('fs');
const { SignatureV4 } = require('@smithy/signature-v4');
const { HttpRequest } = require('@smithy/protocol-http');
const { Sha256 } = require('@aws-crypto/sha256-js');

function parseAmzDate(s) {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  if (!m) throw new Error(`bad amzDate ${s}`);
  return new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]));
}

async function main() {
  const cases = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const out = [];
  for (const c of cases) {
    const credentials = { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey };
    if (c.sessionToken) credentials.sessionToken = c.sessionToken;
    // applyChecksum: false, as the DynamoDB client of the AWS SDK signs: no
    // x-amz-content-sha256 header (S3's), the body's hash only in the
    // canonical request.
    const signer = new SignatureV4({
      service: c.service, region: c.region, credentials, sha256: Sha256, applyChecksum: false,
    });
    const request = new HttpRequest({
      method: c.method, protocol: 'https:', hostname: c.hostname, port: c.port, path: c.path,
      query: c.query, headers: c.headers, body: c.body,
    });
    const signed = await signer.sign(request, { signingDate: parseAmzDate(c.amzDate) });
    const headers = {};
    for (const [name, value] of Object.entries(signed.headers)) headers[name.toLowerCase()] = value;
    out.push(headers);
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

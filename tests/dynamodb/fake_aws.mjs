// fake_aws.mjs: local fakes of the AWS endpoints credentials come from (STS,
// EC2 instance metadata IMDSv2, the ECS/EKS container credentials endpoint),
// and a front for a DynamoDB-compatible server (DynamoDB Local) that checks
// what AWS would check of a request signed with the credentials issued here,
// throttles on demand, and counts what it saw. Tests of the credential chain
// and of the retry rules run against it: fake_aws.h starts it from C++.
//
//   node fake_aws.mjs --dynamodb http://127.0.0.1:PORT [--lifetime-s 3600]
//       [--web-identity-token TOKEN] [--container-token TOKEN]
//       [--source-key-id AKID [--source-secret SECRET]] [--region REGION]
//
// It listens on 127.0.0.1, a free port per service, prints one line of JSON
// when ready ({"sts":P,"imds":P,"container":P,"dynamodb":P}) and exits when
// its stdin closes or on SIGTERM. Node 20, no dependencies.
//
// The wire formats are AWS's documented ones: STS's query API (form-encoded
// POST, XML answers and errors, namespace 2011-06-15), IMDSv2 (token PUT
// with a TTL header, 401 without a valid token: IMDSv1 is refused), the
// container endpoint's JSON, DynamoDB's JSON errors. Every credential it
// issues lives `--lifetime-s` seconds; the front refuses requests signed with
// one that has expired, as DynamoDB does.
import http from 'node:http';
import crypto from 'node:crypto';

const options = parseArgs(process.argv.slice(2));
const lifetimeMs = Number(options['lifetime-s'] ?? 3600) * 1000;
const upstream = options.dynamodb ? new URL(options.dynamodb) : null;
if (!upstream || !(lifetimeMs > 0)) {
  process.stderr.write('usage: node fake_aws.mjs --dynamodb http://127.0.0.1:PORT [--lifetime-s S] ...\n');
  process.exit(2);
}

const ROLE_NAME = 'indelible-test-role';
const ACCOUNT = '123456789012';
const IMDS_REGION = 'eu-test-1';

// Every key issued, by access key id: {secret, token, expires (ms), source}.
const issued = new Map();
let keyCounter = 0;
// IMDSv2 session tokens: token -> expiry (ms).
const imdsTokens = new Map();
// What the instance profile and the container role serve now: AWS hands out
// the same set until it nears expiry (IMDS makes new ones available well
// before), so a set is served for the first half of its life, then replaced.
const current = { imds: null, container: null };
let throttle = { fraction: 0, until: 0 };
let stats = freshStats();

function freshStats() {
  return {
    requests: 0, actions: {}, throttled: 0, expired_signatures: 0, bad_tokens: 0,
    bad_signatures: 0, foreign_keys: 0, unsigned: 0,
    issued: { sts: 0, web_identity: 0, imds: 0, container: 0 }, imds_tokens: 0,
  };
}

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; ++i) {
    if (!argv[i].startsWith('--')) continue;
    out[argv[i].slice(2)] = argv[i + 1];
    ++i;
  }
  return out;
}

// AWS writes times to the second: 2026-11-28T17:40:00Z.
function isoTime(ms) { return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z'); }

function randomText(bytes) { return crypto.randomBytes(bytes).toString('base64'); }

function issue(source) {
  ++keyCounter;
  const accessKeyId = 'ASIAFAKE' + String(keyCounter).padStart(8, '0');
  // Whole seconds: the client reads the expiry as written.
  const expires = Math.floor((Date.now() + lifetimeMs) / 1000) * 1000;
  const key = {
    accessKeyId, secret: randomText(30), token: 'FwoFakeSessionToken/' + randomText(96),
    expires, issuedAt: Date.now(), source,
  };
  issued.set(accessKeyId, key);
  stats.issued[source] += 1;
  return key;
}

// The set a role serves now (IMDS, container), renewed past half its life.
function currentKey(source) {
  const key = current[source];
  if (key && Date.now() < key.issuedAt + (key.expires - key.issuedAt) / 2) return key;
  current[source] = issue(source);
  return current[source];
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res, status, contentType, body, headers = {}) {
  const bytes = Buffer.from(body);
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': bytes.length, ...headers });
  res.end(bytes);
}

function xmlEscape(s) {
  return String(s).replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' }[c]));
}

// ---------------------------------------------------------------- SigV4

function uriEncode(text, keepSlash) {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-_.~]/.test(c) || (keepSlash && c === '/')) out += c;
    else out += '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

function uriDecode(text) {
  return Buffer.from(text.replace(/%([0-9A-Fa-f]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16))), 'latin1')
    .toString('utf8');
}

// "AWS4-HMAC-SHA256 Credential=AKID/20261128/eu-test-1/dynamodb/aws4_request,
// SignedHeaders=a;b, Signature=hex" -> its parts; null when not of that form.
function parseAuthorization(value) {
  if (!value) return null;
  const m = /^AWS4-HMAC-SHA256\s+(.*)$/.exec(value.trim());
  if (!m) return null;
  const parts = {};
  for (const piece of m[1].split(',')) {
    const eq = piece.indexOf('=');
    if (eq > 0) parts[piece.slice(0, eq).trim()] = piece.slice(eq + 1).trim();
  }
  if (!parts.Credential || !parts.SignedHeaders || !parts.Signature) return null;
  const [accessKeyId, date, region, service, terminator] = parts.Credential.split('/');
  if (terminator !== 'aws4_request') return null;
  return { accessKeyId, date, region, service, signedHeaders: parts.SignedHeaders, signature: parts.Signature };
}

// Why the request's signature is not the one `secret` makes, or null when it
// is. The canonical request is built from the request as received, the way
// AWS's SigV4 documentation describes it for every service but S3.
function signatureProblem(req, body, auth, secret) {
  const amzDate = req.headers['x-amz-date'];
  if (!amzDate || !/^\d{8}T\d{6}Z$/.test(amzDate)) return 'no x-amz-date';
  if (amzDate.slice(0, 8) !== auth.date) return 'the credential scope is not dated as x-amz-date';
  const signedAt = Date.UTC(+amzDate.slice(0, 4), +amzDate.slice(4, 6) - 1, +amzDate.slice(6, 8),
    +amzDate.slice(9, 11), +amzDate.slice(11, 13), +amzDate.slice(13, 15));
  if (Math.abs(Date.now() - signedAt) > 15 * 60 * 1000) return 'signature expired (x-amz-date more than 15 minutes off)';
  const names = auth.signedHeaders.split(';');
  if (!names.includes('host')) return 'host is not signed';
  if (!names.includes('x-amz-date')) return 'x-amz-date is not signed';
  // Values of a header sent twice join with commas, in order; blanks trimmed
  // and runs of them made one.
  const values = new Map();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i].toLowerCase();
    const value = req.rawHeaders[i + 1].trim().replace(/[ \t]+/g, ' ');
    values.set(name, values.has(name) ? values.get(name) + ',' + value : value);
  }
  let canonicalHeaders = '';
  for (const name of names) {
    if (!values.has(name)) return `signed header ${name} is missing`;
    canonicalHeaders += `${name}:${values.get(name)}\n`;
  }
  const q = req.url.indexOf('?');
  const path = q < 0 ? req.url : req.url.slice(0, q);
  const query = q < 0 ? '' : req.url.slice(q + 1);
  const params = query.split('&').filter((p) => p.length > 0).map((p) => {
    const eq = p.indexOf('=');
    const name = eq < 0 ? p : p.slice(0, eq);
    const value = eq < 0 ? '' : p.slice(eq + 1);
    return [uriEncode(uriDecode(name), false), uriEncode(uriDecode(value), false)];
  });
  params.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  const canonicalRequest = [
    req.method, uriEncode(path, true), params.map(([n, v]) => `${n}=${v}`).join('&'),
    canonicalHeaders, auth.signedHeaders, crypto.createHash('sha256').update(body).digest('hex'),
  ].join('\n');
  const scope = `${auth.date}/${auth.region}/${auth.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope,
    crypto.createHash('sha256').update(canonicalRequest).digest('hex')].join('\n');
  let key = Buffer.from('AWS4' + secret, 'utf8');
  for (const part of [auth.date, auth.region, auth.service, 'aws4_request']) {
    key = crypto.createHmac('sha256', key).update(part).digest();
  }
  const expected = crypto.createHmac('sha256', key).update(stringToSign).digest('hex');
  if (expected !== auth.signature) return 'signature mismatch';
  return null;
}

// ---------------------------------------------------------------- STS

const STS_NS = 'https://sts.amazonaws.com/doc/2011-06-15/';

function stsError(res, status, code, message) {
  const type = status >= 500 ? 'Receiver' : 'Sender';
  send(res, status, 'text/xml',
    `<ErrorResponse xmlns="${STS_NS}">\n  <Error>\n    <Type>${type}</Type>\n    <Code>${code}</Code>\n` +
    `    <Message>${xmlEscape(message)}</Message>\n  </Error>\n  <RequestId>${crypto.randomUUID()}</RequestId>\n` +
    '</ErrorResponse>\n');
}

function credentialsXml(key) {
  return '    <Credentials>\n' +
    `      <AccessKeyId>${key.accessKeyId}</AccessKeyId>\n` +
    `      <SecretAccessKey>${xmlEscape(key.secret)}</SecretAccessKey>\n` +
    `      <SessionToken>${xmlEscape(key.token)}</SessionToken>\n` +
    `      <Expiration>${isoTime(key.expires)}</Expiration>\n` +
    '    </Credentials>\n';
}

function assumedRoleUserXml(roleArn, sessionName) {
  const roleName = roleArn.split('/').pop();
  return '    <AssumedRoleUser>\n' +
    `      <Arn>arn:aws:sts::${ACCOUNT}:assumed-role/${xmlEscape(roleName)}/${xmlEscape(sessionName)}</Arn>\n` +
    `      <AssumedRoleId>AROAFAKEROLEID0000000:${xmlEscape(sessionName)}</AssumedRoleId>\n` +
    '    </AssumedRoleUser>\n';
}

// STS's own validation of the parameters both actions share; the name of the
// problem, or null.
function stsParamsProblem(params) {
  const roleArn = params.get('RoleArn');
  const session = params.get('RoleSessionName');
  if (!roleArn) return "Value null at 'roleArn' failed to satisfy constraint: Member must not be null";
  if (!/^arn:aws[a-z-]*:iam::\d{12}:role\/.+$/.test(roleArn)) return `${roleArn} is invalid`;
  if (!session) return "Value null at 'roleSessionName' failed to satisfy constraint: Member must not be null";
  if (!/^[\w+=,.@-]{2,64}$/.test(session)) {
    return `Value '${session}' at 'roleSessionName' failed to satisfy constraint: ` +
      'Member must satisfy regular expression pattern: [\\w+=,.@-]*';
  }
  const duration = params.get('DurationSeconds');
  if (duration !== null && !(Number(duration) >= 900 && Number(duration) <= 43200)) {
    return `Value '${duration}' at 'durationSeconds' failed to satisfy constraint: Member must have value between 900 and 43200`;
  }
  return null;
}

async function handleSts(req, res) {
  const body = await readBody(req);
  if (req.method !== 'POST') return stsError(res, 400, 'InvalidAction', 'STS takes POST /');
  const params = new URLSearchParams(body.toString('utf8'));
  const action = params.get('Action');
  if (params.get('Version') !== '2011-06-15') {
    return stsError(res, 400, 'InvalidParameterValue', 'Version must be 2011-06-15');
  }
  if (action === 'AssumeRole') {
    const auth = parseAuthorization(req.headers.authorization);
    if (!auth) {
      return stsError(res, 403, 'MissingAuthenticationToken', 'Request is missing Authentication Token');
    }
    if (auth.service !== 'sts') {
      return stsError(res, 403, 'SignatureDoesNotMatch', `Credential should be scoped to correct service: 'sts'.`);
    }
    let secret = null;
    if (options['source-key-id'] && auth.accessKeyId === options['source-key-id']) {
      secret = options['source-secret'] ?? null;  // checked when the test gave it
    } else {
      const key = issued.get(auth.accessKeyId);
      if (!key) return stsError(res, 403, 'InvalidClientTokenId', 'The security token included in the request is invalid.');
      if (Date.now() >= key.expires) return stsError(res, 403, 'ExpiredToken', 'The security token included in the request is expired');
      if (req.headers['x-amz-security-token'] !== key.token) {
        return stsError(res, 403, 'InvalidClientTokenId', 'The security token included in the request is invalid.');
      }
      secret = key.secret;
    }
    if (secret !== null) {
      const problem = signatureProblem(req, body, auth, secret);
      if (problem) {
        return stsError(res, 403, 'SignatureDoesNotMatch',
          `The request signature we calculated does not match the signature you provided (${problem}).`);
      }
    }
    const problem = stsParamsProblem(params);
    if (problem) return stsError(res, 400, 'ValidationError', `1 validation error detected: ${problem}`);
    const key = issue('sts');
    return send(res, 200, 'text/xml',
      `<AssumeRoleResponse xmlns="${STS_NS}">\n  <AssumeRoleResult>\n` +
      assumedRoleUserXml(params.get('RoleArn'), params.get('RoleSessionName')) + credentialsXml(key) +
      `  </AssumeRoleResult>\n  <ResponseMetadata>\n    <RequestId>${crypto.randomUUID()}</RequestId>\n` +
      '  </ResponseMetadata>\n</AssumeRoleResponse>\n');
  }
  if (action === 'AssumeRoleWithWebIdentity') {
    // Unsigned: the token is the proof.
    const problem = stsParamsProblem(params);
    if (problem) return stsError(res, 400, 'ValidationError', `1 validation error detected: ${problem}`);
    const token = params.get('WebIdentityToken');
    if (!token) {
      return stsError(res, 400, 'ValidationError',
        "1 validation error detected: Value null at 'webIdentityToken' failed to satisfy constraint: Member must not be null");
    }
    if (options['web-identity-token'] !== undefined && token !== options['web-identity-token']) {
      return stsError(res, 400, 'InvalidIdentityToken', 'The ID Token provided is not a valid JWT. (You may see this error if you sent an Access Token)');
    }
    const key = issue('web_identity');
    return send(res, 200, 'text/xml',
      `<AssumeRoleWithWebIdentityResponse xmlns="${STS_NS}">\n  <AssumeRoleWithWebIdentityResult>\n` +
      '    <SubjectFromWebIdentityToken>system:serviceaccount:default:indelible</SubjectFromWebIdentityToken>\n' +
      '    <Audience>sts.amazonaws.com</Audience>\n' +
      assumedRoleUserXml(params.get('RoleArn'), params.get('RoleSessionName')) + credentialsXml(key) +
      '    <Provider>arn:aws:iam::123456789012:oidc-provider/oidc.eks.eu-test-1.amazonaws.com/id/FAKE</Provider>\n' +
      `  </AssumeRoleWithWebIdentityResult>\n  <ResponseMetadata>\n    <RequestId>${crypto.randomUUID()}</RequestId>\n` +
      '  </ResponseMetadata>\n</AssumeRoleWithWebIdentityResponse>\n');
  }
  return stsError(res, 400, 'InvalidAction', `Could not find operation ${action} for version 2011-06-15`);
}

// ---------------------------------------------------------------- IMDSv2

async function handleImds(req, res) {
  await readBody(req);
  const path = req.url.split('?')[0];
  if (path === '/latest/api/token') {
    if (req.method !== 'PUT') return send(res, 405, 'text/plain', 'Method Not Allowed');
    // A token must not cross a proxy: IMDS refuses forwarded requests.
    if (req.headers['x-forwarded-for'] !== undefined) return send(res, 403, 'text/plain', 'Forbidden');
    const ttlHeader = req.headers['x-aws-ec2-metadata-token-ttl-seconds'];
    const ttl = Number(ttlHeader);
    if (ttlHeader === undefined || !/^\d+$/.test(ttlHeader) || ttl < 1 || ttl > 21600) {
      return send(res, 400, 'text/plain', 'Missing or Invalid Parameters');
    }
    const token = randomText(40);
    imdsTokens.set(token, Date.now() + ttl * 1000);
    stats.imds_tokens += 1;
    return send(res, 200, 'text/plain', token, { 'X-aws-ec2-metadata-token-ttl-seconds': String(ttl) });
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'Method Not Allowed');
  // IMDSv2 only ("HttpTokens: required"): no valid token, no metadata.
  const token = req.headers['x-aws-ec2-metadata-token'];
  const expires = token === undefined ? undefined : imdsTokens.get(token);
  if (expires === undefined || Date.now() >= expires) return send(res, 401, 'text/plain', 'Unauthorized');
  if (path === '/latest/meta-data/iam/security-credentials/' || path === '/latest/meta-data/iam/security-credentials') {
    return send(res, 200, 'text/plain', ROLE_NAME);
  }
  if (path === `/latest/meta-data/iam/security-credentials/${ROLE_NAME}`) {
    const key = currentKey('imds');
    return send(res, 200, 'text/plain', JSON.stringify({
      Code: 'Success', LastUpdated: isoTime(key.issuedAt), Type: 'AWS-HMAC', AccessKeyId: key.accessKeyId,
      SecretAccessKey: key.secret, Token: key.token, Expiration: isoTime(key.expires),
    }, null, 2));
  }
  if (path === '/latest/meta-data/placement/region') return send(res, 200, 'text/plain', IMDS_REGION);
  if (path === '/latest/dynamic/instance-identity/document') {
    return send(res, 200, 'text/plain', JSON.stringify({
      accountId: ACCOUNT, architecture: 'x86_64', availabilityZone: `${IMDS_REGION}a`, imageId: 'ami-0fa4e0fa4e0fa4e0f',
      instanceId: 'i-0fa4e0fa4e0fa4e0f', instanceType: 't3.micro', pendingTime: isoTime(Date.now() - 3600000),
      privateIp: '10.0.0.10', region: IMDS_REGION, version: '2017-09-30',
    }, null, 2));
  }
  return send(res, 404, 'text/html', '<?xml version="1.0" encoding="iso-8859-1"?>\n<title>404 - Not Found</title>\n');
}

// ---------------------------------------------------------------- container

async function handleContainer(req, res) {
  await readBody(req);
  if (req.method !== 'GET') return send(res, 405, 'application/json', '{"code":"InvalidRequest","message":"GET only"}');
  if (options['container-token'] !== undefined && req.headers.authorization !== options['container-token']) {
    return send(res, 401, 'application/json',
      JSON.stringify({ code: 'AccessDenied', message: 'Authorization header does not match the expected token' }));
  }
  const key = currentKey('container');
  return send(res, 200, 'application/json', JSON.stringify({
    AccessKeyId: key.accessKeyId, Expiration: isoTime(key.expires),
    RoleArn: `arn:aws:iam::${ACCOUNT}:role/${ROLE_NAME}`, SecretAccessKey: key.secret, Token: key.token,
  }));
}

// ---------------------------------------------------------------- DynamoDB front

const upstreamAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function dynamoError(res, status, type, message) {
  send(res, status, 'application/x-amz-json-1.0', JSON.stringify({ __type: type, message }),
    { 'x-amzn-RequestId': crypto.randomUUID().replace(/-/g, '').toUpperCase() });
}

async function handleControl(req, res, path) {
  const body = await readBody(req);
  if (path === '/__fake/stats' && req.method === 'GET') return send(res, 200, 'application/json', JSON.stringify(stats));
  if (path === '/__fake/reset' && req.method === 'POST') {
    stats = freshStats();
    throttle = { fraction: 0, until: 0 };
    return send(res, 200, 'application/json', '{}');
  }
  if (path === '/__fake/throttle' && req.method === 'POST') {
    let asked;
    try { asked = JSON.parse(body.toString('utf8')); } catch { asked = null; }
    const fraction = Number(asked?.fraction);
    const seconds = Number(asked?.seconds);
    if (!(fraction >= 0 && fraction <= 1) || !(seconds >= 0)) {
      return send(res, 400, 'application/json', '{"error":"want {\\"fraction\\": 0..1, \\"seconds\\": >= 0}"}');
    }
    throttle = { fraction, until: Date.now() + seconds * 1000 };
    return send(res, 200, 'application/json', '{}');
  }
  return send(res, 404, 'application/json', '{"error":"no such control"}');
}

async function handleDynamoDb(req, res) {
  const path = req.url.split('?')[0];
  if (path.startsWith('/__fake/')) return handleControl(req, res, path);
  const body = await readBody(req);
  stats.requests += 1;
  const target = req.headers['x-amz-target'];
  if (target) stats.actions[target] = (stats.actions[target] ?? 0) + 1;

  // What DynamoDB checks before it does anything: who signed, with what.
  const auth = parseAuthorization(req.headers.authorization);
  if (!auth) {
    stats.unsigned += 1;
    return dynamoError(res, 400, 'com.amazon.coral.service#MissingAuthenticationTokenException',
      'Request is missing Authentication Token');
  }
  const key = issued.get(auth.accessKeyId);
  if (!key) {
    stats.foreign_keys += 1;  // not ours to check (a test's own static keys)
  } else {
    if (Date.now() >= key.expires) {
      stats.expired_signatures += 1;
      return dynamoError(res, 400, 'com.amazon.coral.service#ExpiredTokenException',
        'The security token included in the request is expired');
    }
    if (req.headers['x-amz-security-token'] !== key.token) {
      stats.bad_tokens += 1;
      return dynamoError(res, 400, 'com.amazon.coral.service#UnrecognizedClientException',
        'The security token included in the request is invalid.');
    }
    let problem = signatureProblem(req, body, auth, key.secret);
    if (!problem && auth.service !== 'dynamodb') problem = `Credential should be scoped to correct service: 'dynamodb'.`;
    if (!problem && options.region && auth.region !== options.region) {
      problem = `Credential should be scoped to a valid region, not '${auth.region}'.`;
    }
    if (problem) {
      stats.bad_signatures += 1;
      // DynamoDB answers a bad signature with 400, as all its client errors.
      return dynamoError(res, 400, 'com.amazon.coral.service#InvalidSignatureException',
        problem === 'signature mismatch'
          ? 'The request signature we calculated does not match the signature you provided. ' +
            'Check your AWS Secret Access Key and signing method. Consult the service documentation for details.'
          : problem);
    }
  }

  if (Date.now() < throttle.until && Math.random() < throttle.fraction) {
    stats.throttled += 1;
    return dynamoError(res, 400, 'com.amazonaws.dynamodb.v20120810#ThrottlingException',
      'Rate of requests exceeds the allowed throughput.');
  }

  const headers = { ...req.headers };
  delete headers.connection;
  delete headers['keep-alive'];
  delete headers['transfer-encoding'];
  headers['content-length'] = String(body.length);
  const forwarded = http.request({
    protocol: upstream.protocol, hostname: upstream.hostname, port: upstream.port,
    method: req.method, path: req.url, headers, agent: upstreamAgent,
  }, async (answer) => {
    const relayed = await readBody(answer);
    const out = {};
    for (const [name, value] of Object.entries(answer.headers)) {
      if (!['connection', 'keep-alive', 'transfer-encoding', 'content-length'].includes(name)) out[name] = value;
    }
    out['content-length'] = relayed.length;
    res.writeHead(answer.statusCode, out);
    res.end(relayed);
  });
  forwarded.on('error', (e) => {
    dynamoError(res, 500, 'com.amazonaws.dynamodb.v20120810#InternalServerError', `fake front: upstream: ${e.message}`);
  });
  forwarded.end(body);
}

// ---------------------------------------------------------------- servers

function serve(handler) {
  const server = http.createServer((req, res) => {
    handler(req, res).catch((e) => {
      if (!res.headersSent) send(res, 500, 'text/plain', `fake_aws: ${e.stack ?? e}`);
      else res.destroy();
    });
  });
  // Longer than a client's idle pool keeps a connection: an idle close racing
  // a request is not what these tests are about.
  server.keepAliveTimeout = 120000;
  server.headersTimeout = 125000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server.address().port));
  });
}

const ports = {
  sts: await serve(handleSts),
  imds: await serve(handleImds),
  container: await serve(handleContainer),
  dynamodb: await serve(handleDynamoDb),
};
process.stdout.write(JSON.stringify(ports) + '\n');

// The harness keeps our stdin open for as long as it wants us.
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));

// Sends N requests, each with a well-formed API key whose id nobody made
// (a new random id every time), to a server started with --auth, over C
// keep-alive connections, and samples the server's resident memory
// (VmRSS of /proc/PID/status) as it goes; then checks that a known key is
// still accepted. Prints one line per sample and a summary line.
//   node unknown_keys.mjs --port P --pid PID --key KNOWN_KEY [--requests N] [--connections C]
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, arg, i, all) => {
    if (arg.startsWith('--')) pairs.push([arg.slice(2), all[i + 1]]);
    return pairs;
  }, []),
);
const port = Number(args.port);
const pid = Number(args.pid);
const total = Number(args.requests ?? 1_000_000);
const connections = Number(args.connections ?? 16);
const agent = new http.Agent({ keepAlive: true, maxSockets: connections });

function rssMiB() {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)[1]);
  return kib / 1024;
}

function get(path, key) {
  return new Promise((resolve, reject) => {
    const request = http.get(
      { host: '127.0.0.1', port, path, agent, headers: { Authorization: `Bearer ${key}` } },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode));
      },
    );
    request.on('error', reject);
  });
}

function randomKey() {
  // idl_<16 hex digits>_<43 base64url characters>, as `keys create` makes them.
  return `idl_${randomBytes(8).toString('hex')}_${randomBytes(32).toString('base64url')}`;
}

const samples = [];
let sent = 0;
let refused = 0;
const started = Date.now();
const every = Math.max(1, Math.floor(total / 10));
let next = every;
const progress = process.stderr.isTTY;

async function worker() {
  while (sent < total) {
    sent++;
    const status = await get('/streams', randomKey());
    if (status === 401) refused++;
    else throw new Error(`a random key got HTTP ${status}, not 401`);
    if (sent >= next) {
      next += every;
      samples.push([sent, rssMiB()]);
      console.log(`requests=${sent} rss_mib=${rssMiB().toFixed(1)}`);
    } else if (progress && sent % 1000 === 0) {
      process.stderr.write(`\r${sent}/${total} requests\x1b[K`);
    }
  }
}

const before = rssMiB();
console.log(`requests=0 rss_mib=${before.toFixed(1)}`);
await Promise.all(Array.from({ length: connections }, worker));
if (progress) process.stderr.write('\r\x1b[K');
const known = await get('/streams', args.key);
const seconds = (Date.now() - started) / 1000;
const first = samples[0]?.[1] ?? before;
const last = rssMiB();
console.log(
  `unknown_keys requests=${total} refused_401=${refused} connections=${connections} ` +
    `seconds=${seconds.toFixed(1)} rss_before_mib=${before.toFixed(1)} ` +
    `rss_at_10pct_mib=${first.toFixed(1)} rss_end_mib=${last.toFixed(1)} ` +
    `growth_after_10pct_mib=${(last - first).toFixed(1)} known_key_status=${known}`,
);
agent.destroy();
if (known !== 200) process.exit(1);

// enrolment-ts against a real server (node --test): the rules one command at
// a time, then the races they exist for, every command in flight at once:
// 50 students for 10 seats, one student into 12 courses against the limit
// of 3, and 8 students into 4 courses against both; then the CLI's commands
// and exit statuses.
//
// Starts `indelible serve` on a free port with a temporary data folder.
// Binary: INDELIBLE_BIN (default build/dev/src/cli/indelible).
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { Client } from '@indelible/client';

import { Enrolment, Rejected, STUDENT_ENROLLED, courseTag } from '../dist/enrolment.js';

const here = dirname(fileURLToPath(import.meta.url));
const example = resolve(here, '..');
const root = resolve(example, '../..');
const indelible = process.env.INDELIBLE_BIN || join(root, 'build/dev/src/cli/indelible');

let folder;
let server;
let base;
let client;

// Course and student ids of one test: the tests share the server.
const run = Math.random().toString(36).slice(2, 8);
const id = (name) => `${name}-${run}`;

async function startServer() {
  const child = spawn(indelible, ['serve', '--store', `file:${join(folder, 'server')}`, '--listen', '127.0.0.1:0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const url = await new Promise((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`indelible serve did not start: ${err}`)), 10000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveUrl(m[1]);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`indelible serve exited (${code}): ${err}`));
    });
  });
  return { child, url };
}

before(async () => {
  assert.ok(existsSync(indelible), `INDELIBLE_BIN: ${indelible} does not exist (build it, or set INDELIBLE_BIN)`);
  assert.ok(existsSync(join(example, 'dist/main.js')), 'dist/main.js: run npm run build first');
  folder = mkdtempSync(join(tmpdir(), 'enrolment-ts-test-'));
  ({ child: server, url: base } = await startServer());
  client = new Client(base);
});

after(async () => {
  client?.close();
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server.once('exit', r));
    server.kill('SIGTERM');
    await exited;
  }
  if (folder) rmSync(folder, { recursive: true, force: true });
});

async function rejection(promise) {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof Rejected, String(err));
    return err.message;
  }
  assert.fail('the command was carried out');
}

async function enrolledEvents(course) {
  const events = [];
  for await (const e of client.readQueryAll({ items: [{ types: [STUDENT_ENROLLED], tags: [courseTag(course)] }] })) events.push(e);
  return events;
}

/** Runs every command at once; the successes, and every failure that is not a rejection for `reason`. */
async function race(commands, reason) {
  const outcomes = await Promise.allSettled(commands.map((command) => command()));
  const unexpected = outcomes.filter((o) => o.status === 'rejected' && !(o.reason instanceof Rejected && o.reason.message === reason)).map((o) => String(o.reason));
  return { succeeded: outcomes.filter((o) => o.status === 'fulfilled').map((o) => o.value), unexpected };
}

test('the rules, one command at a time; the events go without a stream, tagged', async () => {
  const enrolments = new Enrolment(client, { maxCoursesPerStudent: 2 });
  const [c1, c2, c3, s1, s2, s3] = ['c1', 'c2', 'c3', 's1', 's2', 's3'].map(id);
  assert.equal(await rejection(enrolments.enrol(s1, c1)), `course ${c1} does not exist`);
  await enrolments.defineCourse(c1, 1);
  assert.equal(await rejection(enrolments.defineCourse(c1, 5)), `course ${c1} exists already`);

  const first = await enrolments.enrol(s1, c1);
  assert.equal(first.attempts, 1);
  assert.equal(await rejection(enrolments.enrol(s1, c1)), `student ${s1} is enrolled in course ${c1} already`);
  assert.equal(await rejection(enrolments.enrol(s2, c1)), `course ${c1} is full (1 of 1)`);
  await enrolments.changeCapacity(c1, 2);
  await enrolments.enrol(s2, c1);

  await enrolments.defineCourse(c2, 5);
  await enrolments.defineCourse(c3, 5);
  await enrolments.enrol(s1, c2);
  assert.equal(await rejection(enrolments.enrol(s1, c3)), `student ${s1} holds 2 enrolments already, the most allowed`);
  assert.equal(await rejection(enrolments.drop(s1, c3)), `student ${s1} is not enrolled in course ${c3}`);
  await enrolments.drop(s1, c1);
  await enrolments.enrol(s1, c3);
  await enrolments.enrol(s3, c1);

  assert.deepEqual(await enrolments.getCourse(c1), { id: c1, capacity: 2, students: [s2, s3] });
  assert.deepEqual(await enrolments.studentCourses(s1), [c2, c3]);
  assert.equal(await enrolments.getCourse(id('c9')), null);

  const [stored] = await enrolledEvents(c1);
  assert.equal(stored.stream, '$dcb');
  assert.deepEqual(stored.tags, [courseTag(c1), `student:${s1}`]);
  assert.equal(stored.position, first.position);
});

test('50 students race for 10 seats: exactly 10 get one', async () => {
  // Each conflict means another enrolment in the course was written after
  // the read, and at most 10 are: 11 decisions always suffice.
  const enrolments = new Enrolment(client, { maxAttempts: 11 });
  const course = id('race');
  await enrolments.defineCourse(course, 10);
  const { succeeded, unexpected } = await race(
    Array.from({ length: 50 }, (_, i) => () => enrolments.enrol(id(`r${i}`), course)),
    `course ${course} is full (10 of 10)`,
  );
  assert.deepEqual(unexpected, []);
  assert.equal(succeeded.length, 10);
  assert.ok(succeeded.some((o) => o.attempts > 1), 'the race was real: some enrolment decided again after a conflict');
  assert.equal((await enrolledEvents(course)).length, 10);
  assert.equal((await enrolments.getCourse(course)).students.length, 10);
});

test('one student races into 12 courses: exactly 3 enrolments, the limit', async () => {
  const enrolments = new Enrolment(client, { maxCoursesPerStudent: 3, maxAttempts: 4 });
  const student = id('eager');
  const courses = Array.from({ length: 12 }, (_, i) => id(`l${i}`));
  for (const course of courses) await enrolments.defineCourse(course, 5);
  const { succeeded, unexpected } = await race(
    courses.map((course) => () => enrolments.enrol(student, course)),
    `student ${student} holds 3 enrolments already, the most allowed`,
  );
  assert.deepEqual(unexpected, []);
  assert.equal(succeeded.length, 3);
  assert.equal((await enrolments.studentCourses(student)).length, 3);
  let stored = 0;
  for (const course of courses) stored += (await enrolledEvents(course)).length;
  assert.equal(stored, 3);
});

test('8 students into 4 courses of 3 seats, at most 2 each, all at once: every seat taken, no limit passed', async () => {
  // A command conflicts only when an enrolment it depends on is written,
  // and at most 12 are: 13 decisions always suffice.
  const enrolments = new Enrolment(client, { maxCoursesPerStudent: 2, maxAttempts: 13 });
  const courses = Array.from({ length: 4 }, (_, i) => id(`b${i}`));
  const students = Array.from({ length: 8 }, (_, i) => id(`t${i}`));
  for (const course of courses) await enrolments.defineCourse(course, 3);
  const outcomes = await Promise.allSettled(students.flatMap((s) => courses.map((c) => enrolments.enrol(s, c))));
  assert.deepEqual(outcomes.filter((o) => o.status === 'rejected' && !(o.reason instanceof Rejected)).map((o) => String(o.reason)), []);
  let seats = 0;
  for (const course of courses) {
    const { students: enrolled } = await enrolments.getCourse(course);
    assert.ok(enrolled.length <= 3);
    assert.equal((await enrolledEvents(course)).length, enrolled.length);
    seats += enrolled.length;
  }
  let held = 0;
  for (const student of students) {
    const n = (await enrolments.studentCourses(student)).length;
    assert.ok(n <= 2);
    held += n;
  }
  assert.equal(held, seats);
  // A course left with k < 3 students refused the other 8 - k for their
  // limit, so they hold 2 each: 2 * (8 - k) > 12 enrolments in 12 seats.
  assert.equal(seats, 12);
});

test('the CLI: commands, output and exit statuses', async () => {
  const cli = (...args) =>
    new Promise((resolveRun) =>
      execFile(process.execPath, [join(example, 'dist/main.js'), '--url', base, ...args], (err, stdout, stderr) =>
        resolveRun({ code: err ? err.code : 0, stdout, stderr }),
      ),
    );
  const [course, other, s1, s2] = ['k1', 'k2', 'ks1', 'ks2'].map(id);
  const defined = await cli('define-course', course, '--capacity', '1');
  assert.equal(defined.code, 0, defined.stderr);
  assert.match(defined.stdout, new RegExp(`^defined course ${course} \\(capacity 1\\) at position \\d+\\n$`));
  const enrolled = await cli('enrol', s1, course);
  assert.equal(enrolled.code, 0, enrolled.stderr);
  assert.match(enrolled.stdout, new RegExp(`^enrolled ${s1} in ${course} at position \\d+\\n$`));
  const full = await cli('enrol', s2, course);
  assert.equal(full.code, 2);
  assert.equal(full.stderr, `enrolment-ts: rejected: course ${course} is full (1 of 1)\n`);
  assert.equal((await cli('change-capacity', course, '--capacity', '2')).code, 0);
  assert.equal((await cli('enrol', s2, course)).code, 0);
  assert.equal((await cli('drop', s1, course)).code, 0);
  assert.equal((await cli('course', course)).stdout, `${JSON.stringify({ course, capacity: 2, students: [s2] })}\n`);
  assert.equal((await cli('student', s2)).stdout, `${JSON.stringify({ student: s2, courses: [course] })}\n`);
  assert.equal((await cli('define-course', other, '--capacity', '5')).code, 0);
  const limited = await cli('--max-per-student', '1', 'enrol', s2, other);
  assert.equal(limited.code, 2);
  assert.match(limited.stderr, new RegExp(`student ${s2} holds 1 enrolments already`));
  assert.equal((await cli('course', id('nope'))).code, 1);
  assert.equal((await cli('enrol', s1)).code, 1, 'a missing argument is a usage error');
});

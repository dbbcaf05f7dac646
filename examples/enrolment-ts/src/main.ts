#!/usr/bin/env node
// enrolment-ts: course enrolment with a capacity and a per-student limit
// (enrolment.ts), one command per run, on an indelible server. The commands
// and what they print are those of the C++ example (indelible-enrolment).
//
//   node dist/main.js --url http://127.0.0.1:2113 define-course c1 --capacity 10
//   node dist/main.js --url http://127.0.0.1:2113 enrol s1 c1
//
// Exit status: 0 done, 2 rejected by a rule (the reason on stderr), 1 any
// other error.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import { Client } from '@indelible/client';

import { Enrolment, Rejected, type Outcome } from './enrolment.js';

const usage = `enrolment-ts: course enrolment with a capacity and a per-student limit
Usage: node dist/main.js [--url URL] [--max-per-student N] [--api-key-file FILE] [--ca-file FILE] COMMAND

Commands:
  define-course COURSE --capacity N    define a course with its capacity
  change-capacity COURSE --capacity N  change a course's capacity
  enrol STUDENT COURSE                 enrol a student in a course
  drop STUDENT COURSE                  drop a student's enrolment in a course
  course COURSE                        print a course as JSON
  student STUDENT                      print a student's courses as JSON

  --url URL              the server (default http://127.0.0.1:2113)
  --max-per-student N    enrolments a student may hold at once (default 3)
  --api-key-file FILE    a file holding the API key (or JWT) to send; default: $INDELIBLE_API_KEY
  --ca-file FILE         with an https URL: PEM certificates to trust
`;

class UsageError extends Error {}

function positive(text: string | undefined, what: string): number {
  const n = Number(text);
  if (text === undefined || !Number.isSafeInteger(n) || n < 1) throw new UsageError(`${what} must be an integer of at least 1`);
  return n;
}

async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: 'string', default: 'http://127.0.0.1:2113' },
      'max-per-student': { type: 'string', default: '3' },
      capacity: { type: 'string' },
      'api-key-file': { type: 'string' },
      'ca-file': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(usage);
    return 0;
  }
  const [command, ...args] = positionals;
  const arity: Record<string, number> = { 'define-course': 1, 'change-capacity': 1, enrol: 2, drop: 2, course: 1, student: 1 };
  if (command === undefined || arity[command] === undefined || args.length !== arity[command]) throw new UsageError(usage);
  const apiKey = values['api-key-file'] !== undefined ? readFileSync(values['api-key-file'], 'utf8').trim() : process.env.INDELIBLE_API_KEY;
  const client = new Client(values.url!, {
    ...(apiKey ? { apiKey } : {}),
    ...(values['ca-file'] !== undefined ? { ca: readFileSync(values['ca-file']) } : {}),
  });
  const enrolments = new Enrolment(client, { maxCoursesPerStudent: positive(values['max-per-student'], '--max-per-student') });
  const done = (outcome: Outcome, what: string) => console.log(`${what} at position ${outcome.position}`);
  try {
    switch (command) {
      case 'define-course': {
        const capacity = positive(values.capacity, '--capacity');
        done(await enrolments.defineCourse(args[0]!, capacity), `defined course ${args[0]} (capacity ${capacity})`);
        break;
      }
      case 'change-capacity': {
        const capacity = positive(values.capacity, '--capacity');
        done(await enrolments.changeCapacity(args[0]!, capacity), `course ${args[0]} has capacity ${capacity}`);
        break;
      }
      case 'enrol':
        done(await enrolments.enrol(args[0]!, args[1]!), `enrolled ${args[0]} in ${args[1]}`);
        break;
      case 'drop':
        done(await enrolments.drop(args[0]!, args[1]!), `dropped ${args[0]} from ${args[1]}`);
        break;
      case 'course': {
        const course = await enrolments.getCourse(args[0]!);
        if (course === null) {
          process.stderr.write(`enrolment-ts: course ${args[0]} does not exist\n`);
          return 1;
        }
        console.log(JSON.stringify({ course: course.id, capacity: course.capacity, students: course.students }));
        break;
      }
      case 'student':
        console.log(JSON.stringify({ student: args[0], courses: await enrolments.studentCourses(args[0]!) }));
        break;
    }
    return 0;
  } finally {
    client.close();
  }
}

run(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(err.message.endsWith('\n') ? err.message : `enrolment-ts: ${err.message}\n`);
      process.exitCode = 1;
      return;
    }
    process.stderr.write(`enrolment-ts: ${err instanceof Rejected ? 'rejected: ' : ''}${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = err instanceof Rejected ? 2 : 1;
  },
);

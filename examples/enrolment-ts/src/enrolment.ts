// Course enrolment, the Dynamic Consistency Boundary specification's classic
// example (dcb.events), on tags, queries and conditional commits
// (docs/DCB.md) through @indelible/client: a course has a capacity, a
// student holds at most N enrolments. Neither rule fits one stream: the
// capacity counts every student's enrolment in the course, the limit every
// course's enrolment of the student. Each command reads the events its rule
// depends on (by the tags `course:<id>` and `student:<id>`), decides, and
// commits on the condition that nothing matching that read was written
// since; a condition conflict means another command got there first, so it
// reads again and decides anew.
//
// The events are those of the C++ example (examples/enrolment): the same
// types, data and tags, without a stream (they go to `$dcb`).

import { ConflictError, type Client, type EventInput, type Query } from '@indelible/client';

export const COURSE_DEFINED = 'CourseDefined';
export const COURSE_CAPACITY_CHANGED = 'CourseCapacityChanged';
export const STUDENT_ENROLLED = 'StudentEnrolled';
export const STUDENT_DROPPED = 'StudentDropped';

const COURSE_TYPES = [COURSE_DEFINED, COURSE_CAPACITY_CHANGED];
const ENROLMENT_TYPES = [STUDENT_ENROLLED, STUDENT_DROPPED];

export const courseTag = (course: string): string => `course:${course}`;
export const studentTag = (student: string): string => `student:${student}`;

/** A rule refused the command; the message says which. Nothing was written. */
export class Rejected extends Error {
  override readonly name = 'Rejected';
}

export interface Options {
  /** Enrolments a student may hold at once (default 3). */
  maxCoursesPerStudent?: number;
  /**
   * Decisions per command (default 16): the first, and one more after each
   * condition conflict. A conflict means a matching event was written since
   * the read; past this the command fails with that ConflictError.
   */
  maxAttempts?: number;
}

/** A command that was carried out. */
export interface Outcome {
  /** Of the event it wrote. */
  position: number;
  /** Decisions made (1: no conflict). */
  attempts: number;
}

export interface Course {
  id: string;
  capacity: number;
  /** Enrolled now, in enrolment order. */
  students: string[];
}

/** What the events a decision read say about one course and one student (either id may be ''). */
interface Facts {
  courseDefined: boolean;
  capacity: number;
  courseStudents: string[];
  studentCourses: string[];
  /** The last event read: the condition's `after`. None read: the condition fails on any matching event. */
  lastRead: number | undefined;
}

function apply(ids: string[], id: string, enrolled: boolean): void {
  const at = ids.indexOf(id);
  if (enrolled && at < 0) ids.push(id);
  if (!enrolled && at >= 0) ids.splice(at, 1);
}

// Ids become tags, which the store limits to 128 bytes.
function checkId(what: string, id: string): void {
  if (typeof id !== 'string' || id.length === 0 || Buffer.byteLength(id) > 100) throw new TypeError(`${what} must be 1 to 100 bytes`);
}

function checkCapacity(capacity: number): void {
  if (!Number.isSafeInteger(capacity) || capacity < 1) throw new TypeError('capacity must be an integer of at least 1');
}

export class Enrolment {
  private readonly maxCoursesPerStudent: number;
  private readonly maxAttempts: number;

  constructor(
    private readonly client: Client,
    options: Options = {},
  ) {
    this.maxCoursesPerStudent = options.maxCoursesPerStudent ?? 3;
    this.maxAttempts = options.maxAttempts ?? 16;
  }

  /** Rejected if the course exists. */
  defineCourse(course: string, capacity: number): Promise<Outcome> {
    checkId('course', course);
    checkCapacity(capacity);
    const query: Query = { items: [{ types: [COURSE_DEFINED], tags: [courseTag(course)] }] };
    return this.decide(query, course, '', (facts) => {
      if (facts.courseDefined) throw new Rejected(`course ${course} exists already`);
      return { type: COURSE_DEFINED, data: { course, capacity }, tags: [courseTag(course)] };
    });
  }

  /** Rejected if the course does not exist. A capacity below the students enrolled drops nobody. */
  changeCapacity(course: string, capacity: number): Promise<Outcome> {
    checkId('course', course);
    checkCapacity(capacity);
    const query: Query = { items: [{ types: COURSE_TYPES, tags: [courseTag(course)] }] };
    return this.decide(query, course, '', (facts) => {
      if (!facts.courseDefined) throw new Rejected(`course ${course} does not exist`);
      return { type: COURSE_CAPACITY_CHANGED, data: { course, capacity }, tags: [courseTag(course)] };
    });
  }

  /** Rejected if the course does not exist or is full, the student is in it already, or holds the most enrolments allowed. */
  enrol(student: string, course: string): Promise<Outcome> {
    checkId('student', student);
    checkId('course', course);
    // The course's definition, capacity and enrolments; the student's
    // enrolments in any course. An event of either kind written after the
    // read may change the answer, so both are the condition.
    const query: Query = {
      items: [
        { types: [...COURSE_TYPES, ...ENROLMENT_TYPES], tags: [courseTag(course)] },
        { types: ENROLMENT_TYPES, tags: [studentTag(student)] },
      ],
    };
    const limit = this.maxCoursesPerStudent;
    return this.decide(query, course, student, (facts) => {
      if (!facts.courseDefined) throw new Rejected(`course ${course} does not exist`);
      if (facts.courseStudents.includes(student)) throw new Rejected(`student ${student} is enrolled in course ${course} already`);
      const enrolled = facts.courseStudents.length;
      if (enrolled >= facts.capacity) throw new Rejected(`course ${course} is full (${enrolled} of ${facts.capacity})`);
      if (facts.studentCourses.length >= limit) throw new Rejected(`student ${student} holds ${limit} enrolments already, the most allowed`);
      return { type: STUDENT_ENROLLED, data: { student, course }, tags: [courseTag(course), studentTag(student)] };
    });
  }

  /** Rejected if the student is not enrolled in the course. */
  drop(student: string, course: string): Promise<Outcome> {
    checkId('student', student);
    checkId('course', course);
    // Only this student's enrolments in this course decide it.
    const query: Query = { items: [{ types: ENROLMENT_TYPES, tags: [courseTag(course), studentTag(student)] }] };
    return this.decide(query, course, student, (facts) => {
      if (!facts.studentCourses.includes(course)) throw new Rejected(`student ${student} is not enrolled in course ${course}`);
      return { type: STUDENT_DROPPED, data: { student, course }, tags: [courseTag(course), studentTag(student)] };
    });
  }

  /** The course, or null if it was never defined. */
  async getCourse(course: string): Promise<Course | null> {
    checkId('course', course);
    const facts = await this.read({ items: [{ types: [...COURSE_TYPES, ...ENROLMENT_TYPES], tags: [courseTag(course)] }] }, course, '');
    return facts.courseDefined ? { id: course, capacity: facts.capacity, students: facts.courseStudents } : null;
  }

  /** The courses the student is enrolled in now. */
  async studentCourses(student: string): Promise<string[]> {
    checkId('student', student);
    return (await this.read({ items: [{ types: ENROLMENT_TYPES, tags: [studentTag(student)] }] }, '', student)).studentCourses;
  }

  private async read(query: Query, course: string, student: string): Promise<Facts> {
    const facts: Facts = { courseDefined: false, capacity: 0, courseStudents: [], studentCourses: [], lastRead: undefined };
    for await (const event of this.client.readQueryAll(query)) {
      facts.lastRead = event.position;
      const data = event.data as { course: string; student?: string; capacity?: number };
      if (event.type === COURSE_DEFINED || event.type === COURSE_CAPACITY_CHANGED) {
        if (data.course === course) {
          facts.courseDefined = true;
          facts.capacity = data.capacity!;
        }
      } else if (event.type === STUDENT_ENROLLED || event.type === STUDENT_DROPPED) {
        const enrolled = event.type === STUDENT_ENROLLED;
        if (data.course === course) apply(facts.courseStudents, data.student!, enrolled);
        if (data.student === student) apply(facts.studentCourses, data.course, enrolled);
      }
    }
    return facts;
  }

  /**
   * Read, decide, commit on the condition that nothing the read matched was
   * written since; on a condition conflict, all over again. `decide`
   * answers the event to write, or throws Rejected.
   */
  private async decide(query: Query, course: string, student: string, decide: (facts: Facts) => EventInput): Promise<Outcome> {
    for (let attempt = 1; ; attempt++) {
      const facts = await this.read(query, course, student);
      const event = decide(facts);
      try {
        // No stream: the events go to $dcb.
        const written = await this.client.commit([{ events: [event] }], { condition: { failIfEventsMatch: query, after: facts.lastRead } });
        return { position: written.position, attempts: attempt };
      } catch (err) {
        if (!(err instanceof ConflictError && err.reason === 'condition') || attempt >= this.maxAttempts) throw err;
      }
    }
  }
}

// Course enrolment, the Dynamic Consistency Boundary specification's classic
// example (dcb.events), on tags, queries and conditional appends
// (docs/DCB.md): a course has a capacity, a student holds at most N
// enrolments. Neither rule fits one stream: the capacity counts every
// student's enrolment in the course, the limit every course's enrolment of
// the student. Each command reads the events its rule depends on (by the
// tags `course:<id>` and `student:<id>`), decides, and appends on the
// condition that nothing matching that read was written since; a conflict
// means another command got there first, so it reads again and decides anew.
//
// The events have no stream of their own (they go to kStreamlessStream,
// "$dcb"): the tags are their only consistency boundary.
#pragma once

#include <indelible/query.h>
#include <indelible/result.h>
#include <indelible/store.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace enrolment {

inline constexpr std::string_view kCourseDefined = "CourseDefined";
inline constexpr std::string_view kCourseCapacityChanged = "CourseCapacityChanged";
inline constexpr std::string_view kStudentEnrolled = "StudentEnrolled";
inline constexpr std::string_view kStudentDropped = "StudentDropped";

std::string CourseTag(std::string_view course);    // "course:<id>"
std::string StudentTag(std::string_view student);  // "student:<id>"

struct Options {
  // Enrolments a student may hold at once.
  std::int64_t max_courses_per_student = 3;
  // Decisions per command: the first, and one more after each condition
  // conflict. A conflict means a matching event was written since the read,
  // so a command that keeps losing is one that others keep changing the
  // answer for; past this it fails as the conflict.
  int max_attempts = 16;
};

// A command that was carried out.
struct Outcome {
  indelible::Position position;  // of the event it wrote
  int attempts = 1;              // decisions made (1: no conflict)
};

struct Course {
  std::string id;
  std::int64_t capacity = 0;
  std::vector<std::string> students;  // enrolled now, in enrolment order
};

// Thread-safe (the store is): commands may run on many threads at once.
// Every command answers ok, rejected (a rule refused it; the reason says
// which), or the store's error (a conflict after max_attempts decisions).
class Enrolment {
 public:
  explicit Enrolment(indelible::Store& store, Options options = {})
      : store_(store), options_(options) {}

  // Rejected if the course exists; the capacity must be at least 1 (invalid).
  indelible::Result<Outcome> DefineCourse(std::string_view course, std::int64_t capacity);
  // Rejected if the course does not exist. A capacity below the students
  // enrolled drops nobody: it stops new enrolments until some leave.
  indelible::Result<Outcome> ChangeCapacity(std::string_view course, std::int64_t capacity);
  // Rejected if the course does not exist or is full, the student is
  // enrolled in it already, or holds max_courses_per_student enrolments.
  indelible::Result<Outcome> Enrol(std::string_view student, std::string_view course);
  // Rejected if the student is not enrolled in the course.
  indelible::Result<Outcome> Drop(std::string_view student, std::string_view course);

  // not_found if the course was never defined.
  indelible::Result<Course> GetCourse(std::string_view course);
  // The courses the student is enrolled in now.
  indelible::Result<std::vector<std::string>> StudentCourses(std::string_view student);

 private:
  indelible::Store& store_;
  Options options_;
};

}  // namespace enrolment

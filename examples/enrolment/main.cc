// indelible-enrolment: course enrolment with a capacity and a per-student
// limit (enrolment.h), one command per run, on any store URL.
//
//   indelible-enrolment --store file:./data define-course c1 --capacity 10
//   indelible-enrolment --store file:./data enrol s1 c1
//
// Exit status: 0 done, 2 rejected by a rule (the reason on stderr), 1 any
// other error.
#include <indelible/store.h>

#include <CLI/CLI.hpp>
#include <boost/json.hpp>
#include <cstdio>
#include <string>

#include "enrolment.h"

namespace {

int Report(const indelible::Status& status) {
  std::fprintf(stderr, "indelible-enrolment: %s\n", status.ToString().c_str());
  return status.code() == indelible::ErrorCode::kRejected ? 2 : 1;
}

int Done(const indelible::Result<enrolment::Outcome>& outcome, const std::string& what) {
  if (!outcome.ok()) return Report(outcome.status());
  std::printf("%s at position %llu\n", what.c_str(),
              static_cast<unsigned long long>(outcome->position.value()));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"indelible-enrolment: course enrolment with a capacity and a per-student limit"};
  app.require_subcommand(1);
  std::string store_url;
  enrolment::Options options;
  app.add_option("--store", store_url, "store URL (file:PATH, memory: or dynamodb://HOST:PORT?...)")
      ->required();
  app.add_option("--max-per-student", options.max_courses_per_student,
                 "enrolments a student may hold at once")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);

  std::string course, student;
  std::int64_t capacity = 0;
  auto* define = app.add_subcommand("define-course", "define a course with its capacity");
  define->add_option("course", course)->required();
  define->add_option("--capacity", capacity)->required();
  auto* change = app.add_subcommand("change-capacity", "change a course's capacity");
  change->add_option("course", course)->required();
  change->add_option("--capacity", capacity)->required();
  auto* enrol = app.add_subcommand("enrol", "enrol a student in a course");
  enrol->add_option("student", student)->required();
  enrol->add_option("course", course)->required();
  auto* drop = app.add_subcommand("drop", "drop a student's enrolment in a course");
  drop->add_option("student", student)->required();
  drop->add_option("course", course)->required();
  auto* show_course = app.add_subcommand("course", "print a course as JSON");
  show_course->add_option("course", course)->required();
  auto* show_student = app.add_subcommand("student", "print a student's courses as JSON");
  show_student->add_option("student", student)->required();
  CLI11_PARSE(app, argc, argv);

  auto store = indelible::Store::Open(store_url);
  if (!store.ok()) return Report(store.status());
  enrolment::Enrolment enrolments(**store, options);

  if (*define)
    return Done(enrolments.DefineCourse(course, capacity),
                "defined course " + course + " (capacity " + std::to_string(capacity) + ")");
  if (*change)
    return Done(enrolments.ChangeCapacity(course, capacity),
                "course " + course + " has capacity " + std::to_string(capacity));
  if (*enrol)
    return Done(enrolments.Enrol(student, course), "enrolled " + student + " in " + course);
  if (*drop)
    return Done(enrolments.Drop(student, course), "dropped " + student + " from " + course);
  if (*show_course) {
    auto found = enrolments.GetCourse(course);
    if (!found.ok()) return Report(found.status());
    boost::json::array students;
    for (const auto& s : found->students) students.emplace_back(s);
    std::printf("%s\n", boost::json::serialize(boost::json::object{{"course", found->id},
                                                                   {"capacity", found->capacity},
                                                                   {"students", students}})
                            .c_str());
    return 0;
  }
  auto courses = enrolments.StudentCourses(student);
  if (!courses.ok()) return Report(courses.status());
  boost::json::array list;
  for (const auto& c : *courses) list.emplace_back(c);
  std::printf(
      "%s\n",
      boost::json::serialize(boost::json::object{{"student", student}, {"courses", list}}).c_str());
  return 0;
}
